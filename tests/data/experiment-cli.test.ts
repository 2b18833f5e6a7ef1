// `prh experiment` straight on caption data in its own format (no import step): a Kaggle-layout Flickr8k folder
// built from the fixture photos, precomputed image embeddings, bad input (exit 2, the message alone), and the
// real photos of ../shared/data/flickr8k-1k through MobileNetV2's pooled feature when they are at hand.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { DEMO_EPOCHS, ExperimentConfig, WORLD_ARM_LR, type ExperimentResult } from '../../shared/experiment';
import { demoConfig, demoRates } from '../../engine/cli/experiment';
import { freeParameters } from '../../engine/align';
import { Service } from '../../engine/api';
import { writeEmbeddings } from '../../engine/embeddings';
import { InputError } from '../../engine/errors';

const root = resolve(import.meta.dirname, '..', '..');
const FIX = join(import.meta.dirname, 'fixtures', 'flickr8k-kaggle');
const tmp = mkdtempSync(join(tmpdir(), 'prh-exp-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Out = { status: number | null; stdout: string; stderr: string };
const prh = (...args: string[]): Out => {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'prh.js'), ...args, '--runs', join(tmp, 'runs')], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: join(tmp, 'cache') },
    timeout: 600_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};
const TINY = ['--epochs', '1', '--batch', '4', '--bootstrap', '100', '--parallel', '1'];

// 36 photos in the Kaggle layout: the 12 fixture photos three times over, under new names, with their captions.
const mini = join(tmp, 'mini8k');
mkdirSync(join(mini, 'images'), { recursive: true });
const ids: string[] = [];
const rows = ['image,caption'];
for (let copy = 0; copy < 3; copy++)
  for (let i = 0; i < 12; i++) {
    const id = `${copy}${1000 + i}_m`;
    ids.push(id);
    cpSync(join(FIX, 'images', `${1000 + i}_f8k.jpg`), join(mini, 'images', `${id}.jpg`));
    for (let k = 0; k < 5; k++)
      rows.push(
        `${id}.jpg,"copy ${copy} of photo ${i} , caption ${k} : ${['a red', 'a green', 'a blue'][i % 3]} square"`,
      );
  }
writeFileSync(join(mini, 'captions.txt'), rows.join('\n') + '\n');

describe('prh experiment on a caption folder', () => {
  it('runs on the folder with precomputed image embeddings (.npy + ids sidecar) and prints the protocol', () => {
    const D = 6;
    const emb = Float32Array.from(
      { length: ids.length * D },
      (_, j) => Math.sin(j * 1.7) + (j % D === Math.floor(j / D) % D ? 1 : 0),
    );
    const npy = join(tmp, 'elsewhere.npy');
    writeEmbeddings(npy, { rows: ids.length, dim: D, data: emb }, ids);
    const r = prh(
      'experiment',
      '--data',
      mini,
      '--image-embeddings',
      npy,
      '--arms',
      'good,ntp',
      '--arm-lr',
      'ntp=1e-3',
      '--lr',
      '3e-3',
      '--fit-pairs',
      '11',
      '--test-pairs',
      '11',
      ...TINY,
      '--json',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      status: string;
      dir: string;
      protocol: string;
      result: ExperimentResult;
    };
    expect(out.status, JSON.stringify(out).slice(0, 800)).toBe('done');
    expect(r.status).toBe(0);
    const res = out.result;
    expect(res.pairs.fit).toBe(11);
    expect(res.pairs.test).toBe(11);
    expect(res.chance.r1).toBeCloseTo(1 / 11, 12);
    const dTxt = 64; // the cpu preset's output width
    expect(res.pairs.freeParameters).toBe(freeParameters(D, dTxt));
    expect(res.image).toMatchObject({ preset: 'precomputed', dim: D, model: npy });
    // --arm-lr over --lr: each arm's train run holds its own rate, and the result says which.
    for (const [arm, lr] of [
      ['good', 3e-3],
      ['ntp', 1e-3],
    ] as const) {
      const a = res.arms.find((x) => x.arm === arm)!;
      expect(a.lr).toBe(lr);
      expect(JSON.parse(readFileSync(join(out.dir, 'arms', a.runId, 'config.json'), 'utf8'))).toMatchObject({
        arm,
        lr,
      });
    }
    expect(out.protocol).toMatch(
      new RegExp(
        `^protocol: n fit 11, n test 11; chance R@1 0\\.0909, mutual k-NN 1\\.0000; free parameters of the map ${res.pairs.freeParameters.toLocaleString('en')}; 6-d image side \\(precomputed\\)`,
      ),
    );
    // `prh runs show` prints where the time went: the experiment's phases, then a row per arm run
    const shown = prh('runs', 'show', basename(out.dir));
    expect(shown.status).toBe(0);
    const [phases, perArm] = shown.stdout.split('**Time per arm run (wall seconds per phase)**');
    expect(phases).toContain('**Time per phase**');
    for (const p of ['opening data', 'embedding photos', 'training arms', 'comparing arms', 'report', 'total'])
      expect(phases).toMatch(new RegExp(`\\| ${p} +\\| +\\d+\\.\\d \\|`));
    expect(perArm.match(/^\| (good|ntp) +\|/gm)).toEqual(['| good |', '| ntp  |']);
    expect(shown.stdout).not.toContain('"busy"'); // the curve stays in --json
  }, 600_000);

  it('bad input exits 2 with the message alone: missing photos, no rows for some photos, a broken caption row', () => {
    const broken = join(tmp, 'broken');
    cpSync(mini, broken, { recursive: true });
    for (const id of ids) unlinkSync(join(broken, 'images', `${id}.jpg`));
    writeFileSync(join(broken, 'images', 'other.jpg'), '');
    let r = prh('experiment', '--data', broken, '--fit-pairs', '11', '--test-pairs', '11', ...TINY);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error: .*images: none of the 22 photos named in .*captions\.txt is in this folder \(.*the folder holds 1 image file\(s\): other\.jpg\); an experiment embeds the fit and test photos\n$/,
    );
    const npy = join(tmp, 'few.npy');
    writeEmbeddings(npy, { rows: 2, dim: 3, data: new Float32Array(6) }, ids.slice(0, 2));
    r = prh(
      'experiment',
      '--data',
      mini,
      '--image-embeddings',
      npy,
      '--fit-pairs',
      '11',
      '--test-pairs',
      '11',
      ...TINY,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: .*few\.npy: no row for 2[01] of the 22 photos the experiment needs .*, e\.g\. /);
    r = prh('experiment', '--data', mini, '--arms', 'good,ntp', '--arm-lr', 'bad=1e-3', ...TINY);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('error: --arm-lr bad=0.001: a learning rate for an arm the experiment does not train\n');
    r = prh('experiment', '--data', mini, '--arm-lr', 'good:1e-3', ...TINY);
    expect([r.status, r.stderr]).toEqual([
      2,
      "error: --arm-lr: expected arm=rate pairs, e.g. good=4e-3,bad=1e-3; got 'good:1e-3'\n",
    ]);
    r = prh('experiment', '--data', mini, '--arm-lr', 'gud=1e-3', ...TINY);
    expect([r.status, r.stderr]).toEqual([
      2,
      'error: --arm-lr gud=0.001: not arms: gud (arms: good, bad, ntp, pair-ntp)\n',
    ]);
    r = prh('experiment', '--data', join(import.meta.dirname, 'fixtures', 'flickr8k-bad-csv'), ...TINY);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `error: ${join(import.meta.dirname, 'fixtures', 'flickr8k-bad-csv', 'captions.txt')}:3: 3 columns, the header has 2 (quote a caption that holds a comma)\n`,
    );
  }, 600_000);
});

describe('prh demo: learning rates and epochs', () => {
  it('trains each arm at its world-tuned rate; --arm-lr changes single arms over them, --lr sets one rate for all', () => {
    expect(demoRates({})).toEqual(WORLD_ARM_LR);
    expect(demoRates({ armLr: { good: 5e-3 } })).toEqual({ good: 5e-3, bad: 1e-3, ntp: 1e-3 });
    expect(demoRates({ lr: 3e-3 })).toBeUndefined();
    expect(demoRates({ lr: 3e-3, armLr: { bad: 1e-4 } })).toEqual({ bad: 1e-4 });
  });
  it('trains the three text arms for DEMO_EPOCHS (12) unless --epochs says otherwise, with the other flags passed on', () => {
    const parse = (o: Parameters<typeof demoConfig>[1]) => ExperimentConfig.parse(demoConfig('/w', o));
    const c = parse({});
    expect([c.arms, c.train.epochs, DEMO_EPOCHS, c.armLr, c.image.model]).toEqual([
      ['good', 'bad', 'ntp'],
      12,
      12,
      WORLD_ARM_LR,
      'world',
    ]);
    const d = parse({ epochs: 2, batch: 16, seeds: [0, 1] });
    expect([d.train.epochs, d.train.batch, d.seeds]).toEqual([2, 16, [0, 1]]);
    expect(() => parse({ lamb: 0.1, lambEff: 1 })).toThrow(/λ_eff given with λ: give one, not both/); // the schema's rule
  });
});

describe("the training flags' help", () => {
  it("names the defaults each command trains with: the schema's, and the demo's own epochs and rates", () => {
    // one flag's help, its wrapped lines joined
    const flag = (help: string, name: string) => {
      const at = help.indexOf(`\n  ${name}`);
      expect(at, name).toBeGreaterThan(0);
      return help
        .slice(at + 1)
        .split(/\n {2}--/)[0]
        .replace(/\s+/g, ' ');
    };
    const demo = prh('demo', '--help').stdout,
      experiment = prh('experiment', '--help').stdout;
    expect(flag(demo, '--epochs')).toContain('(default 12)'); // before: the schema's 8, which the demo does not train
    expect(flag(demo, '--lr')).toContain("(default each arm's world-tuned rate, good 4e-3, bad 1e-3, ntp 1e-3)");
    expect(flag(experiment, '--epochs')).toContain('(default 8)');
    expect(flag(experiment, '--lr')).toContain('(default 0.002)');
    expect(flag(experiment, '--lamb <x>')).toContain('(default 0.02)');
  });
});

describe('the app starting an experiment on an opened folder (the service behind both transports)', () => {
  it('checks the data before a run exists: a bad folder is an InputError naming what is wrong, and no run is created', async () => {
    let settings = { theme: 'system' as const, dataRoots: [] as string[] };
    const service = new Service({
      runsDir: join(tmp, 'app-runs'),
      userData: join(tmp, 'app'),
      transport: 'ws',
      settings: { get: () => settings, set: (p) => (settings = { ...settings, ...p } as typeof settings) },
    });
    onTestFinished(() => service.close()); // its watch timer must not outlive the test's folder
    const config = (data: string) => ({
      kind: 'experiment',
      version: 1,
      data,
      image: { model: 'world' },
      eval: { fitPairs: 11, testPairs: 11 },
    });
    await expect(service.dispatch('startRun', { config: config(join(tmp, 'nowhere')) })).rejects.toThrow(
      /nowhere: no such file or folder/,
    );
    const half = join(tmp, 'half');
    cpSync(mini, half, { recursive: true });
    for (const id of ids.slice(0, 30)) unlinkSync(join(half, 'images', `${id}.jpg`));
    const err = await service.dispatch('startRun', { config: config(half) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/images: \d+ of the 22 photos named in .*captions\.txt are missing: /);
    expect(await service.dispatch('listRuns', {})).toEqual([]);
  });
});

// The real photos at hand (not in a user's clone).
const SHARED = resolve(root, '..', 'shared');
const f8k = join(SHARED, 'data', 'flickr8k-1k'),
  mobilenet = join(SHARED, 'models', 'mobilenetv2-12-int8.onnx');
const real = existsSync(join(f8k, 'captions.txt')) && existsSync(mobilenet);
if (!real) console.log(`skipping the flickr8k-1k experiment: ${f8k} or ${mobilenet} is absent`);
describe.skipIf(!real)('../shared/data/flickr8k-1k (1,000 real photos, Kaggle layout)', () => {
  it('prh experiment straight on the folder, MobileNetV2 int8 pooled feature (1,280-d), 1 epoch', () => {
    const r = prh(
      'experiment',
      '--data',
      f8k,
      '--image-model',
      mobilenet,
      '--image-output',
      '464_quantized',
      '--arms',
      'good',
      '--fit-pairs',
      '200',
      '--test-pairs',
      '200',
      ...TINY,
      '--json',
    );
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      status: string;
      protocol: string;
      result: ExperimentResult;
    };
    expect(out.status).toBe('done');
    expect(out.result.image).toMatchObject({
      dim: 1280,
      tensor: '464_quantized',
      pool: 'none',
      preset: 'imagenet-cnn',
    });
    expect(out.result.pairs).toMatchObject({ fit: 200, test: 200 });
    expect(out.protocol).toMatch(/^protocol: n fit 200, n test 200; chance R@1 0\.0050/);
  }, 600_000);
});
