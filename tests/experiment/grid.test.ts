// The 2x2 (image views x text views) end to end on a tiny procedural world: two tiny image JEPAs trained in the
// experiment (real tfjs), exported to ONNX and run through the image path, two text arms as real worker runs, every
// cell scored; cells checked against the plain evaluation, differences against the cells. Plus the config's refusals,
// in the schema, before a run, and from the CLI (exit 2, the message alone).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentResult } from '../../shared/experiment';
import { RunConfig, type RunEvent } from '../../shared/runs';
import { evaluate } from '../../engine/align';
import { generateWorld, readDataset } from '../../engine/data';
import { InputError } from '../../engine/errors';
import { imageCeiling } from '../../engine/experiment/ceiling';
import { matchDroppedImages } from '../../engine/experiment/drop';
import { armLayout, experimentLayout } from '../../engine/experiment/layout';
import { pairSplits, readSide } from '../../engine/experiment/pairs';
import { preflightRun } from '../../engine/experiment/protocol';
import { RunStore, Scheduler } from '../../engine/runs';
import { workerCommand } from '../../engine/worker';
import { runToEnd } from '../faults/run-to-end';

const root = resolve(import.meta.dirname, '..', '..');
const home = mkdtempSync(join(tmpdir(), 'prh-grid-'));
const world = join(home, 'world');
const photos = join(root, 'tests', 'data', 'fixtures', 'flickr8k-kaggle');
afterAll(() => rmSync(home, { recursive: true, force: true }));
beforeAll(() => {
  generateWorld(world, { seed: 3, splits: { train: 120, val: 40, test: 40 } });
});

const TINY_IMAGE = { steps: 4, batch: 8, hidden: 16, depth: 1, renders: 3 };
const config = (over: Record<string, unknown> = {}) => ({
  kind: 'experiment',
  version: 1,
  name: '2x2',
  data: world,
  arms: ['good', 'bad'],
  seeds: [0],
  imageViews: TINY_IMAGE,
  train: { epochs: 1, batch: 16, slices: 128 },
  eval: { bootstrap: 200, sweepCounts: [10, 20], sweepRepeats: 2 },
  ...over,
});

describe('2x2 config', () => {
  it('refuses NTP text arms, a frozen image model or precomputed embeddings, and repeated image arms', () => {
    const issues = (c: Record<string, unknown>) => {
      const r = RunConfig.safeParse(c);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(issues(config())).toEqual([]);
    expect(issues(config({ arms: ['good', 'ntp'] }))).toEqual([
      expect.stringMatching(/compares JEPA text arms only.*no NTP/),
    ]);
    expect(issues(config({ image: { model: '/m.onnx' } }))).toEqual([
      expect.stringMatching(/trains its own image encoders/),
    ]);
    expect(issues(config({ image: { embeddings: '/e.npy' } }))).toEqual([
      expect.stringMatching(/trains its own image encoders/),
    ]);
    expect(issues(config({ imageViews: { arms: ['good', 'good'] } }))).toEqual(['each image arm once']);
    expect(issues(config({ imageViews: { hidden: 24 } })).length).toBe(1); // 16 per head
  });

  it('needs a procedural world: real photos are refused before the run, naming the data and why', () => {
    let error: unknown;
    try {
      preflightRun(RunConfig.parse(config({ data: photos })));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(
      /flickr8k-kaggle.*captions\.txt: the 2x2 experiment \(image views\) renders further views .* needs a procedural world .*this is \w[\w-]* data, whose photos have no scene state/,
    );
    expect(() => preflightRun(RunConfig.parse(config({ imageViews: { ...TINY_IMAGE, batch: 121 } })))).toThrow(
      /120 training scenes is fewer than one image-arm batch of 121/,
    );
  });

  it('the CLI exits 2 with the message alone', () => {
    const prh = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'bin', 'prh.js'), ...args, '--runs', join(home, 'cli-runs')], {
        encoding: 'utf8',
        timeout: 120_000,
      });
    let r = prh('experiment', '--data', photos, '--image-views', 'good,bad');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: .*needs a procedural world.*this is \w[\w-]* data.*\n$/);
    r = prh('experiment', '--data', world, '--image-views', 'good,bad', '--arms', 'good,ntp');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: .*no NTP/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    r = prh('experiment', '--data', world, '--image-steps', '5');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('error: --image-steps applies to the 2x2 only: add --image-views good,bad\n');
  }, 120_000);
});

describe('2x2 experiment', () => {
  it("trains both image arms, scores the four cells with CIs, and differences that are the cells' differences", async () => {
    const { store, id, state } = await runToEnd(join(home, 'runs'), config());
    expect(state.error).toBeNull();
    expect(state.status).toBe('done');
    const r = state.result as unknown as ExperimentResult;
    const g = r.grid!;

    // Equal compute: same steps, batch and views; the good arm drew from 3 renders, the bad one from 1. Both read out
    // through the world encoder's whitened pooler: CLS + 4x4 regions of 16 wide = 272 features, capped at 120 - 1 scenes.
    expect(g.imageArms.map((a) => [a.arm, a.renders, a.steps, a.batch, a.views, a.dim])).toEqual([
      ['good', 3, 4, 8, 4, 119],
      ['bad', 1, 4, 8, 4, 119],
    ]);
    expect(g.imageArms[0].sha256).not.toBe(g.imageArms[1].sha256);
    expect(g.cells.map((c) => `${c.image}/${c.text}`)).toEqual(['good/good', 'good/bad', 'bad/good', 'bad/bad']);
    for (const c of g.cells)
      for (const i of [c.r1, c.r5]) {
        expect(Number.isFinite(i.estimate) && Number.isFinite(i.lo) && Number.isFinite(i.hi)).toBe(true);
        expect(i.lo).toBeLessThanOrEqual(i.estimate);
        expect(i.hi).toBeGreaterThanOrEqual(i.estimate);
      }

    // Each cell is the plain evaluation of its image arm's and text arm's embeddings on the same pairs.
    const dir = store.dir(id);
    const layout = experimentLayout(dir);
    const arms = new RunStore(layout.arms);
    for (const c of g.cells) {
      const side = layout.imageArm(c.image, c.image === 'good').side;
      const text = r.arms.find((a) => a.arm === c.text)!;
      const emb = armLayout(arms.dir(text.runId)).embeddings(text.epoch);
      const p = pairSplits(
        { val: readSide(side.val), test: readSide(side.test) },
        { val: readSide(emb.val), test: readSide(emb.test) },
      );
      const e = await evaluate({ image: p.image, text: p.text, fit: p.fit, test: p.test, k: 10 });
      expect(c.r1.estimate).toBeCloseTo(e.imageToText.r1, 12);
      expect(c.r5.estimate).toBeCloseTo(e.imageToText.r5, 12);
    }
    // Each image arm's ceiling is the experiment's ceiling computation on that arm's embeddings; the first arm's is
    // the experiment's own.
    expect(g.ceilings!.map((c) => c.image)).toEqual(['good', 'bad']);
    for (const c of g.ceilings!) {
      const side = layout.imageArm(c.image, c.image === 'good').side;
      const own = await imageCeiling(
        readDataset(world),
        { val: readSide(side.val), test: readSide(side.test) },
        { dim: r.ceiling!.dim, k: 10, seed: 0 },
      );
      expect(c.r1).toBe(own!.r1);
    }
    expect(g.ceilings![0].r1).toBe(r.ceiling!.r1);
    // The first image arm is also the experiment's image side (the text arms' curves and table use it).
    for (const a of r.arms)
      expect(a.r1.estimate).toBeCloseTo(g.cells.find((c) => c.image === 'good' && c.text === a.arm)!.r1.estimate, 12);

    // Every pair of cells, per metric: a − b of the cells' estimates, inside its own CI; labelled by what changed.
    const r1 = g.differences.filter((d) => d.metric === 'r1');
    expect(r1.map((d) => d.varies)).toEqual(['text', 'image', 'both', 'crossed', 'image', 'text']);
    for (const d of g.differences) {
      const cell = (k: { image: string; text: string }) =>
        g.cells.find((c) => c.image === k.image && c.text === k.text)![d.metric]!;
      expect(d.estimate).toBeCloseTo(cell(d.a).estimate - cell(d.b).estimate, 12);
      expect(d.lo).toBeLessThanOrEqual(d.estimate);
      expect(d.hi).toBeGreaterThanOrEqual(d.estimate);
    }

    // Files: each arm's ONNX and record; the second arm's embeddings beside them; the report's 2x2 tables and bars.
    for (const arm of ['good', 'bad']) expect(existsSync(join(dir, 'image-arms', arm, 'encoder.onnx'))).toBe(true);
    expect(existsSync(join(dir, 'image', 'val.npy'))).toBe(true);
    expect(existsSync(join(dir, 'image-arms', 'bad', 'test.npy'))).toBe(true);
    const report = readdirSync(join(dir, 'report'));
    for (const f of [
      'grid.md',
      'grid.csv',
      'grid-differences.md',
      'image-arms.md',
      'grid-bars-r1.png',
      'grid-bars-mknn.png',
      'experiment-image-loss.png',
    ])
      expect(report).toContain(f);
    const image = store.metrics(id).filter((m) => m.scope === 'image');
    expect(new Set(image.map((m) => m.tags?.arm))).toEqual(new Set(['image good', 'image bad']));

    // The image drop works on the run folder moved elsewhere: the first image arm is found inside it.
    const moved = join(home, 'moved-2x2');
    renameSync(dir, moved);
    const ds = readDataset(world);
    const photo = ds.images.find((im) => im.split === 'test')!;
    const drop = await matchDroppedImages(
      moved,
      [{ name: 'scene.png', base64: readFileSync(join(world, 'images', photo.file!)).toString('base64') }],
      'test',
      5,
    );
    expect(drop.arms.map((a) => a.arm)).toEqual(['good', 'bad']);
    expect(drop.arms[0].images[0].own?.photo).toBe(photo.id);
    expect(drop.arms[0].images[0].top).toHaveLength(5);
  }, 600_000);

  it('cancelled while the second image arm trains, resumes without retraining the first', async () => {
    const store = new RunStore(join(home, 'runs-resume'));
    const scheduler = new Scheduler(store, { concurrency: 1, worker: workerCommand() });
    const { id } = store.create(
      RunConfig.parse(config({ name: '2x2 resumed', imageViews: { ...TINY_IMAGE, steps: 40 } })),
    );
    scheduler.submit(id);
    await new Promise<void>((resolve) => {
      const check = (e: RunEvent) =>
        e.type === 'metric' &&
        e.record.scope === 'image' &&
        e.record.tags?.arm === 'image bad' &&
        (scheduler.off('event', check), resolve());
      scheduler.on('event', check);
    });
    scheduler.cancel(id);
    await scheduler.idle();
    expect(store.get(id).status).toBe('cancelled');
    const dir = store.dir(id);
    const good = join(dir, 'image-arms', 'good', 'encoder.onnx');
    expect(existsSync(good)).toBe(true);
    expect(existsSync(join(dir, 'image-arms', 'bad', 'encoder.onnx'))).toBe(false);
    const written = statSync(good).mtimeMs;

    scheduler.submit(id, true);
    await scheduler.idle();
    const state = store.get(id);
    expect(state.status).toBe('done');
    expect(statSync(good).mtimeMs).toBe(written);
    const g = (state.result as unknown as ExperimentResult).grid!;
    expect(g.imageArms.map((a) => a.arm)).toEqual(['good', 'bad']);
    expect(g.cells).toHaveLength(4);
  }, 600_000);
});
