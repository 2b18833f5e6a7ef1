// Divergence is reported honestly: `prh train` exits 3 when it diverges, an experiment scores a diverged arm at its
// last good checkpoint and marks it in every table, and a loss that explodes without a NaN gets a warning.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentResult } from '../../shared/experiment';
import { armsTable } from '../../shared/experiment-figures';
import { generateWorld } from '../../engine/data';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { tableToMarkdown } from '../../engine/report';
import { writeTinyWorld } from '../train/tiny-world';
import { runToEnd as runToEndIn } from './run-to-end';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-diverge-'));
const tiny = writeTinyWorld(join(home, 'tiny'), { train: 64, val: 16, test: 16 });
const world = join(home, 'world');
const vit = join(home, 'vit.onnx');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, ...args], { env: { ...process.env, PRH_HOME: home }, encoding: 'utf8' });
const trainArgs = (out: string) => [
  'train',
  '--data',
  tiny,
  '--arm',
  'good',
  '--out',
  join(home, out),
  '--epochs',
  '2',
  '--batch',
  '16',
  '--slices',
  '32',
  '--vocab-size',
  '100',
  '--backend',
  'wasm',
];

beforeAll(() => {
  generateWorld(world, { seed: 3, splits: { train: 64, val: 16, test: 24 } });
  const cfg = { imageSize: 64, patchSize: 8, hidden: 32, depth: 1, heads: 2, mlp: 64 };
  writeFileSync(vit, buildVitOnnx(cfg, randomVitWeights(cfg, 0)));
});

const runToEnd = (config: unknown) => runToEndIn(join(home, 'runs'), config);

describe('prh train', () => {
  it('exits 3 and says diverged, and that there is no good checkpoint, at --lr 1e6', () => {
    const r = cli(...trainArgs('lr1e6'), '--lr', '1e6');
    expect(r.status).toBe(3); // before: 0
    expect(r.stdout).toMatch(/^diverged: 0 epoch\(s\), no good checkpoint;/m);
    const summary = JSON.parse(readFileSync(join(home, 'lr1e6', 'train-summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'diverged', selected: null });
    expect(summary.message).toMatch(/^loss NaN/);
    expect(existsSync(join(home, 'lr1e6', 'owner.json'))).toBe(false); // released at the end
  }, 60_000);

  it('warns when λ·SIGReg drowns the invariance term (--lamb 1e9), and still exits 0', () => {
    const r = cli(...trainArgs('lamb1e9'), '--lamb', '1e9');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/warning: λ·SIGReg = 3\.\d+e\+10 is over 1e\+4 × the invariance term/);
    const summary = JSON.parse(readFileSync(join(home, 'lamb1e9', 'train-summary.json'), 'utf8'));
    expect(summary.warnings).toHaveLength(1);
  }, 60_000);
});

describe('a run whose loss explodes without a NaN', () => {
  it('ends done with a warning in its log, its events and its result', async () => {
    // lr 8 warmed up from 0 over 20 steps: the loss climbs from .85 to thousands, every value finite (where the path
    // runs depends on the float bits: on MLAS products here, lr 10 and 12 end in a NaN, lr 6 stays under 1e3 x).
    const { store, id, state } = await runToEnd({
      kind: 'train',
      version: 1,
      data: tiny,
      arm: 'good',
      epochs: 5,
      batch: 16,
      slices: 32,
      vocabSize: 100,
      backend: 'wasm',
      lr: 8,
      warmupSteps: 20,
      warmupStart: 0,
    });
    expect(state.status).toBe('done');
    // the explosion, and (its 20-step warmup outlasting the run's steps) that the lr never reached its peak
    const warnings = (state.result as { warnings: string[] }).warnings.filter(
      (w) => !/^the warmup of 20 steps/.test(w),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^loss exploded: epoch \d train loss \S+ is over 1e\+3 × the first step's 0\.8\d+, without a NaN/,
    );
    expect(readFileSync(join(store.dir(id), 'logs.txt'), 'utf8')).toContain(`[warn] ${warnings[0]}`);
    // The same run at the default lr: no warning (the check can stay quiet).
    const calm = await runToEnd({
      kind: 'train',
      version: 1,
      data: tiny,
      arm: 'good',
      epochs: 2,
      batch: 16,
      slices: 32,
      vocabSize: 100,
      backend: 'wasm',
    });
    expect((calm.state.result as { warnings: string[] }).warnings).toEqual([]);
  }, 120_000);
});

describe('an experiment with a diverged arm', () => {
  const experiment = (name: string, train: Record<string, unknown>) => ({
    kind: 'experiment',
    version: 1,
    name,
    data: world,
    image: { model: vit },
    arms: ['good', 'ntp'],
    seeds: [0],
    train: { batch: 16, slices: 64, backend: 'wasm', ...train },
    eval: { bootstrap: 100, sweepCounts: [10], sweepRepeats: 1, k: 5 },
  });

  it('scores it at its last good checkpoint and marks it diverged in the result and the tables', async () => {
    // lr 50 warmed up from 0: both arms train an epoch or two, then their loss turns NaN.
    const { state } = await runToEnd(experiment('late-nan', { epochs: 4, lr: 50, warmupSteps: 20, warmupStart: 0 }));
    expect(state.error).toBeNull(); // before: failed, "arm run ... has no scored checkpoint"
    expect(state.status).toBe('done');
    const r = state.result as unknown as ExperimentResult;
    const diverged = r.arms.filter((a) => a.diverged);
    expect(diverged.length).toBeGreaterThan(0);
    for (const a of diverged) {
      // NaN in a step's loss, or a finite last step whose update overflowed the weights (seen in the epoch's embeddings).
      expect(a.diverged).toMatch(
        /^(loss NaN .* at|non-finite (embeddings|val loss .*) after) step \d+ \(epoch (\d+)\)/,
      );
      expect(a.epoch).toBe(Number(/\(epoch (\d+)\)/.exec(a.diverged!)![1]) - 1); // the checkpoint before the NaN
      expect(a.epoch).toBeGreaterThanOrEqual(1);
    }
    // 16 fit pairs (the val photos) for a [32, 64] map: fewer than its 1,520 free parameters need, which the result says.
    // the map's, and each arm's own (its loss exploding; its 20-step warmup outlasting its steps)
    expect(r.warnings!.filter((w) => !/^\w+ \(seed 0\): /.test(w))).toEqual([
      expect.stringMatching(
        /^the map has 1,520 free parameters but was fitted on 16 pairs \(1024 equations\): it needs at least 24 pairs/,
      ),
    ]);
    const md = tableToMarkdown(armsTable(r.arms));
    for (const a of diverged)
      expect(md).toMatch(new RegExp(`\\| ${a.arm} .*diverged: scored at epoch ${a.epoch}, its last good checkpoint`));
  }, 300_000);

  it('fails with a message naming the arm when it diverged before its first checkpoint', async () => {
    const { state } = await runToEnd(experiment('first-step-nan', { epochs: 2, lr: 1e6 }));
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(
      /^arm good \(seed 0\) diverged before its first checkpoint, so there is nothing to score: loss NaN/,
    );
  }, 300_000);
});
