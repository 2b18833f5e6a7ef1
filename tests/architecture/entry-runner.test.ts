// bin/entry.js, which starts `prh` and every engine process from one bundle of its sources: on a small project of its
// own (a copy of the runner beside an entry and its modules), the entry sees the argv and import.meta it has under tsx;
// an edited source is built again, even at the same size, and so is every entry when the runner changed; a build a
// source was saved during is not kept; tfjs and onnxruntime-node load through require; stack
// traces name the .ts lines; where the bundle cannot be built (a syntax error, no .cache folder) the entry runs under
// tsx, whose error names the file; a build leaves no esbuild process behind.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const project = mkdtempSync(join(tmpdir(), 'prh-entry-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const app = join(project, 'engine', 'app');
mkdirSync(join(project, 'bin'));
mkdirSync(app, { recursive: true });
copyFileSync(join(root, 'bin', 'entry.js'), join(project, 'bin', 'entry.js'));
symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(project, 'tsconfig.json'), '{ "compilerOptions": { "target": "ES2022", "strict": true } }\n');
for (const f of ['main.ts', 'lazy.ts', 'word.ts', 'packages.ts'])
  copyFileSync(join(import.meta.dirname, 'fixtures', 'entry-app', f), join(app, f));
const setWord = (word: string, mtime: Date) => {
  writeFileSync(join(app, 'word.ts'), `export const word: string = '${word}';\n`);
  utimesSync(join(app, 'word.ts'), mtime, mtime);
};
setWord('one', new Date(2026, 0, 1));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(project, 'bin', 'entry.js'), join(app, 'main.ts'), ...args], {
    cwd: project,
    encoding: 'utf8',
  });
const output = (r: ReturnType<typeof run>) => JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
const record = join(project, '.cache', 'entries', 'engine-app-main.json');
const buildDir = () => (JSON.parse(readFileSync(record, 'utf8')) as { dir: string }).dir;

describe('bin/entry.js', () => {
  it('runs the entry bundled, with the argv and import.meta it has under tsx, and builds it once', () => {
    const r = run('a', '--b');
    expect(r.status, r.stderr).toBe(0);
    // built in this process, which left no esbuild service running
    expect(output(r)).toEqual({
      argv: [join(app, 'main.ts'), 'a', '--b'],
      word: 'one',
      lazy: 'loaded',
      dir: app,
      children: 0,
    });
    const first = buildDir();
    expect(output(run())).toMatchObject({ word: 'one' });
    expect(buildDir()).toBe(first);
  });

  it('builds again when a source changed, even to the same size', () => {
    const before = buildDir();
    setWord('six', new Date(2026, 0, 2));
    expect(output(run())).toMatchObject({ word: 'six' });
    expect(buildDir()).not.toBe(before);
  });

  it('builds again when bin/entry.js changed, and when its record is from before bin/entry.js was one of its inputs', () => {
    const runner = join(project, 'bin', 'entry.js');
    const before = buildDir();
    writeFileSync(runner, `${readFileSync(runner, 'utf8')}// another version of the runner\n`);
    expect(output(run())).toMatchObject({ word: 'six' });
    const after = buildDir();
    expect(after).not.toBe(before);
    const older = JSON.parse(readFileSync(record, 'utf8')) as { inputs: Record<string, unknown> };
    delete older.inputs['bin/entry.js'];
    writeFileSync(record, JSON.stringify(older));
    expect(output(run())).toMatchObject({ word: 'six' });
    expect(buildDir()).not.toBe(after);
  });

  it("loads tfjs and onnxruntime-node through require where a module imports them; a dynamic import and a source's own require stay", () => {
    const r = run('tf');
    expect(r.status, r.stderr).toBe(0);
    expect(output(r).packages).toEqual({ sum: 6, ort: 'function', dynamic: 'function', own: 'function' });
    const dir = join(project, '.cache', 'entries', buildDir());
    const code = readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    expect(code).toContain('require("@tensorflow/tfjs")');
    expect(code).not.toMatch(/from "(@tensorflow\/tfjs|onnxruntime-node)"/);
    expect(code).toContain('import("onnxruntime-node")');
  });

  it('does not record a build that a source may have changed under (saved after the build began)', () => {
    const before = buildDir();
    setWord('ten', new Date(Date.now() + 3_600_000));
    expect(output(run())).toMatchObject({ word: 'ten' });
    expect(buildDir()).toBe(before); // the next start builds again
  });

  it("names the source's .ts line in a stack trace", () => {
    const r = run('throw');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/thrown in main/);
    const line = readFileSync(join(app, 'main.ts'), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('thrown in main'));
    expect(r.stderr).toContain(`${join(app, 'main.ts')}:${line + 1}`);
  });

  it("runs under tsx where the bundle cannot be built: a syntax error names its file, a missing .cache doesn't matter", () => {
    setWord("one'", new Date(2026, 0, 3));
    const broken = run();
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toContain(join(app, 'word.ts'));
    setWord('two', new Date(2026, 0, 4));
    rmSync(join(project, '.cache'), { recursive: true });
    writeFileSync(join(project, '.cache'), 'a file where the folder would go\n');
    const r = run('c');
    expect(r.status, r.stderr).toBe(0);
    expect(output(r)).toMatchObject({ argv: [join(app, 'main.ts'), 'c'], word: 'two', lazy: 'loaded', dir: app });
  });
});
