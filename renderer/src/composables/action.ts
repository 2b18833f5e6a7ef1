// One backend action as a screen shows it: busy while a call runs, and the message of the last failure, so a screen
// holds no try/catch of its own. With `latest`, only the newest call may answer or fail (inputs that recompute on
// every change, where an older answer must not overwrite a newer one).
import { computed, ref } from 'vue';

export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>, opts: { latest?: boolean } = {}) {
  const running = ref(0);
  const error = ref('');
  let newest = 0;
  // Resolves to the call's result, or to undefined when it failed or a newer call superseded it.
  async function run(...args: A): Promise<R | undefined> {
    const ticket = ++newest;
    const current = () => !opts.latest || ticket === newest;
    running.value++;
    error.value = '';
    try {
      const result = await fn(...args);
      return current() ? result : undefined;
    } catch (err) {
      if (current()) error.value = (err as Error).message;
      return undefined;
    } finally {
      running.value--;
    }
  }
  return { run, busy: computed(() => running.value > 0), error };
}
