// npm test's file order (tests/sequencer.ts): suite by suite in the config's order (SUITES', then unit), and in a
// suite what failed last time, then files new to vitest's cache, then the longest (cached duration, else size).
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import config, { SUITES } from '../../vitest.config';
import SuitesInOrder from '../sequencer';

type Last = { ms?: number; failed?: boolean; size?: number };
const root = '/repo';
// A vitest context with only what a sequencer reads: the cache of the last run, the root and the projects in order.
async function order(projects: string[], files: [string, string, Last][]): Promise<string[]> {
  const last = new Map(files.map(([p, f, l]) => [`${p}:${f}`, l]));
  const ctx = {
    config: { root },
    projects: projects.map((name) => ({ name })),
    cache: {
      getFileTestResults: (key: string) => {
        const l = last.get(key);
        return l?.ms === undefined ? undefined : { duration: l.ms, failed: l.failed ?? false };
      },
      getFileStats: (key: string) => ({ size: last.get(key)?.size ?? 0 }),
    },
  };
  const specs = files.map(([p, f]) => ({ project: { name: p }, moduleId: `${root}/${f}` }));
  const seq = new SuitesInOrder(ctx as unknown as ConstructorParameters<typeof SuitesInOrder>[0]);
  const sorted = await seq.sort(specs as unknown as TestSpecification[]);
  return sorted.map((x) => x.moduleId.slice(root.length + 1));
}

describe('the order test files start in', () => {
  it('is suite by suite; in a suite what failed, then new files, then the longest of the last run', async () => {
    expect(
      await order(
        ['world-encoder', 'e2e', 'unit'],
        [
          ['unit', 'u/quick.ts', { ms: 500 }],
          ['unit', 'u/slow.ts', { ms: 60_000 }],
          ['e2e', 'e2e/a.ts', { ms: 40_000 }],
          ['unit', 'u/broke.ts', { ms: 100, failed: true }],
          ['world-encoder', 'w/probe.ts', { ms: 90_000 }],
          ['unit', 'u/new.ts', { size: 9_000 }],
          ['e2e', 'e2e/b.ts', { ms: 50_000 }],
          ['world-encoder', 'w/views.ts', { ms: 400 }],
        ],
      ),
    ).toEqual([
      'w/probe.ts',
      'w/views.ts',
      'e2e/b.ts',
      'e2e/a.ts',
      'u/broke.ts',
      'u/new.ts',
      'u/slow.ts',
      'u/quick.ts',
    ]);
  });
  it('in a fresh clone is the suites in their order, each larger files first', async () => {
    expect(
      await order(
        ['world-encoder', 'readme', 'unit'],
        [
          ['unit', 'u/big.ts', { size: 50_000 }],
          ['readme', 'r/readme.ts', { size: 9_000 }],
          ['world-encoder', 'w/small.ts', { size: 1_000 }],
          ['world-encoder', 'w/large.ts', { size: 8_000 }],
        ],
      ),
    ).toEqual(['w/large.ts', 'w/small.ts', 'r/readme.ts', 'u/big.ts']);
  });
  it('is what npm test uses, with the suites before unit', () => {
    const test = config.test!;
    expect(test.sequence?.sequencer).toBe(SuitesInOrder);
    const names = (test.projects as { test: { name: string } }[]).map((p) => p.test.name);
    expect(names).toEqual([...Object.keys(SUITES), 'unit']);
  });
});
