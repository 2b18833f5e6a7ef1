// The message of the InputError `f` throws (and that it throws one), for tests of readers' messages.
import { expect } from 'vitest';
import { InputError } from '../../engine/errors';

export function inputError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  throw new Error('expected an InputError');
}
