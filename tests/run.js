#!/usr/bin/env node
// `npm test`: build the app (the end-to-end tests serve the built renderer), run every vitest suite (or those named:
// `npm test -- --project unit`), and end with one plain `N passed, N failed, N skipped` line that CI reads. Exits
// non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
// The tests' mkdtemp folders (worlds, runs, models, Chromium profiles: ~150 MB a run, most not removed by their tests)
// go under one folder of this run, removed when vitest ends, instead of piling up in /tmp run after run.
const tmp = mkdtempSync(join(tmpdir(), 'prh-tests-'));
const run = (cmd, args) =>
  spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: tmp } }).status;
// Before the folder goes, every process the run started that still runs (a Slurm test's daemons and jobs after its test
// died before stop(), a detached child) is stopped: each inherited this TMPDIR, whatever its command line. Linux's /proc.
const removeTmp = () => {
  const needle = Buffer.from(`TMPDIR=${tmp}\0`);
  if (existsSync('/proc'))
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        if (readFileSync(`/proc/${pid}/environ`).includes(needle)) process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
  rmSync(tmp, { recursive: true, force: true });
};

// The app is built for the end-to-end suite (it serves the built UI): always, unless only other suites are asked for.
const args = process.argv.slice(2);
const projects = args.flatMap((a, i) =>
  args[i - 1] === '--project' ? [a] : a.startsWith('--project=') ? [a.slice(10)] : [],
);
if (
  (!projects.length || projects.includes('e2e')) &&
  run(bin('electron-vite'), ['build', '--logLevel', 'warn']) !== 0
) {
  removeTmp();
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = join(root, '.cache', 'vitest-report.json');
mkdirSync(join(root, '.cache'), { recursive: true });
rmSync(report, { force: true });
const status = run(bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]);
removeTmp();

let passed = 0,
  failed,
  skipped = 0;
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed = r.numPassedTests;
  // A test file that fails to load has no tests of its own: count it as one failure.
  const brokenFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !f.assertionResults?.length).length;
  failed = r.numFailedTests + brokenFiles;
  skipped = r.numPendingTests + r.numTodoTests;
} catch {
  failed = 1; // no report: vitest itself failed to run
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed || passed === 0 ? 1 : 0);
