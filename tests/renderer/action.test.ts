// One backend action as the renderer's screens use it: busy while it runs, the message of a failure, newest wins.
import { describe, expect, it } from 'vitest';
import { useAction } from '../../renderer/src/composables/action';

const deferred = <T>() => {
  let resolve!: (v: T) => void, reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

describe('useAction', () => {
  it('is busy while a call runs, returns its result, and keeps the message of a failure', async () => {
    const d = deferred<number>();
    const a = useAction((x: number) => d.promise.then((v) => v + x));
    const pending = a.run(1);
    expect(a.busy.value).toBe(true);
    d.resolve(41);
    expect(await pending).toBe(42);
    expect(a.busy.value).toBe(false);
    const failing = useAction(async () => {
      throw new Error('no such run');
    });
    expect(await failing.run()).toBeUndefined();
    expect(failing.error.value).toBe('no such run');
    expect(failing.busy.value).toBe(false);
  });

  it('clears the last error when called again', async () => {
    let fail = true;
    const a = useAction(async () => {
      if (fail) throw new Error('down');
      return 'up';
    });
    await a.run();
    expect(a.error.value).toBe('down');
    fail = false;
    expect(await a.run()).toBe('up');
    expect(a.error.value).toBe('');
  });

  it('with latest, an older call that ends last neither answers nor fails', async () => {
    const calls = [deferred<string>(), deferred<string>()];
    let i = 0;
    const a = useAction(() => calls[i++].promise, { latest: true });
    const first = a.run(),
      second = a.run();
    calls[1].resolve('new');
    expect(await second).toBe('new');
    calls[0].reject(new Error('stale'));
    expect(await first).toBeUndefined();
    expect(a.error.value).toBe('');
    expect(a.busy.value).toBe(false);
  });
});
