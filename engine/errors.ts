// Errors a user can fix (bad file, bad flag, wrong shape): the CLI prints the message alone and exits 2.
export class InputError extends Error {
  override name = 'InputError';
}
