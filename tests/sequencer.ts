// The order test files start in: suite by suite in the config's order (the suites of SUITES, whose files start
// processes, servers, Chromium and Slurm and wait on them much of the time, then unit's quick files), and in a suite
// what failed last time first, then files new to vitest's cache, then the longest (its duration in the cache of the
// last run, else its size). vitest's own order is the same but takes the suites by name, which started world-encoder's
// long probe test last, to run its last minute alone. npm test, 2026-12-07: vitest's order 846 s, this order 766-808 s
// (three fresh clones), the longest first across all suites 913 s (the long CPU-bound files side by side, the quick
// ones last).
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class SuitesInOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config, projects } = this.ctx;
    const rank = new Map(projects.map((p, i) => [p.name, i]));
    const facts = new Map(
      files.map((f) => {
        const key = `${f.project.name}:${relative(config.root, f.moduleId)}`;
        const last = cache.getFileTestResults(key);
        return [
          f,
          {
            rank: rank.get(f.project.name) ?? projects.length,
            failed: last?.failed ?? false,
            ms: last?.duration ?? Infinity, // new: first, as vitest runs them
            size: cache.getFileStats(key)?.size ?? 0,
          },
        ];
      }),
    );
    return [...files].sort((a, b) => {
      const [x, y] = [facts.get(a)!, facts.get(b)!];
      return x.rank - y.rank || +y.failed - +x.failed || (y.ms === x.ms ? y.size - x.size : y.ms > x.ms ? 1 : -1);
    });
  }
}
