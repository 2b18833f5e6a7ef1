// The lab API pieces on a tiny generated world: dataset listing, gallery pages, the view inspector, table export,
// and (on a real tiny experiment) image matching and bundling through the lab's child process.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../shared/runs';
import type { MatchResult } from '../../shared/api';
import type { TableSpec } from '../../shared/tables';
import {
  datasetGallery,
  exportBundle,
  exportTable,
  inspectPhotoViews,
  listDatasets,
  runLabTask,
} from '../../engine/api/lab';
import { generateWorld, readDataset } from '../../engine/data';
import { ownCaptions, topMatches } from '../../engine/experiment';
import type { OwnSummary } from '../../engine/cli/match';
import { buildVitOnnx, randomVitWeights } from '../../engine/models/onnx';
import { tableToCsv } from '../../engine/report';
import { RunStore, Scheduler } from '../../engine/runs';
import { workerCommand } from '../../engine/worker';

const home = mkdtempSync(join(tmpdir(), 'prh-lab-'));
const world = join(home, 'datasets', 'tiny');
const root = join(import.meta.dirname, '..', '..');

beforeAll(() => {
  generateWorld(world, { seed: 1, splits: { train: 40, val: 24, test: 24 } });
});

describe('datasets and gallery', () => {
  it('lists the default world (not generated) first, then dataset folders', () => {
    mkdirSync(join(home, 'datasets', 'not-a-dataset'), { recursive: true });
    const list = listDatasets(home);
    expect(list.map((d) => [d.path, d.exists])).toEqual([
      [join(home, 'datasets', 'world-paper-like'), false],
      [world, true],
    ]);
    expect(list[1].counts).toEqual({ train: 40, val: 24, test: 24 });
    expect(list[1].source).toBe('world');
  });

  it('pages through one split with images as data URLs and all captions', () => {
    const g = datasetGallery({ path: world, from: 2, count: 3, split: 'test' });
    expect(g.total).toBe(24);
    expect(g.items).toHaveLength(3);
    for (const it of g.items) {
      expect(it.split).toBe('test');
      expect(it.image).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(it.captions).toHaveLength(5);
      expect(it.evalCaption).toBeGreaterThanOrEqual(0);
    }
    expect(datasetGallery({ path: world, from: 0, count: 5 }).items[0].id).not.toBe(g.items[0].id);
  });
});

describe('view inspector', () => {
  it('gives 8 views per arm: 2 global then 6 local, spans and masks inside the source caption, bad from one caption', async () => {
    const photo = datasetGallery({ path: world, from: 0, count: 1 }).items[0].id;
    const v = await inspectPhotoViews({ path: world, photo, seed: 3 }, null);
    expect(v.captions).toHaveLength(5);
    for (const side of [v.good, v.bad]) {
      expect(side.map((x) => x.global)).toEqual([true, true, false, false, false, false, false, false]);
      for (const x of side) {
        expect(x.masked).toHaveLength(x.tokens.length);
        expect(0 <= x.span[0] && x.span[0] < x.span[1] && x.span[1] <= x.tokens.length).toBe(true);
        x.masked.forEach((m, i) => m && expect(i >= x.span[0] && i < x.span[1]).toBe(true));
        expect(x.masked.slice(x.span[0], x.span[1]).every(Boolean)).toBe(false); // never the whole span
        const frac = (x.span[1] - x.span[0]) / x.tokens.length;
        if (x.tokens.length >= 8) expect(frac).toBeGreaterThanOrEqual(x.global ? 0.4 : 0.1);
      }
    }
    expect(new Set(v.bad.map((x) => x.caption)).size).toBe(1);
    expect(new Set(v.good.map((x) => x.caption)).size).toBeGreaterThan(1);
    // Same seed, same views; another seed, other views.
    expect(await inspectPhotoViews({ path: world, photo, seed: 3 }, null)).toEqual(v);
    expect((await inspectPhotoViews({ path: world, photo, seed: 4 }, null)).good).not.toEqual(v.good);
    await expect(inspectPhotoViews({ path: world, photo: 'nope', seed: 0 }, null)).rejects.toThrow(
      /no photo with id "nope"/,
    );
  });
});

describe('exports', () => {
  const table: TableSpec = {
    id: 'arms',
    title: 'Arms',
    columns: [
      { key: 'arm', label: 'Arm' },
      { key: 'r1', label: 'R@1', format: 'ci' },
    ],
    rows: [{ arm: 'good', r1: { value: 0.25, lo: 0.2, hi: 0.3 } }],
  };
  it('writes a table as CSV / LaTeX / Markdown and keeps a copy in the run report, never over a file there', () => {
    const run = { id: 'run-x', dir: join(home, 'run-x') };
    mkdirSync(join(run.dir, 'report', 'exports'), { recursive: true });
    writeFileSync(join(run.dir, 'report', 'arms.csv'), 'as the run wrote it');
    const csv = exportTable({ table, format: 'csv' }, run);
    expect(csv).toMatchObject({
      filename: 'run-x.arms.csv',
      mime: 'text/csv',
      savedTo: join(run.dir, 'report', 'exports', 'arms.csv'),
    });
    expect(Buffer.from(csv.base64, 'base64').toString()).toBe(tableToCsv(table));
    expect(readFileSync(csv.savedTo!, 'utf8')).toBe(tableToCsv(table));
    expect(readFileSync(join(run.dir, 'report', 'arms.csv'), 'utf8')).toBe('as the run wrote it');
    // The same export again reuses its copy; a different table of the same id gets the next free name.
    expect(exportTable({ table, format: 'csv' }, run).savedTo).toBe(csv.savedTo);
    const other = exportTable({ table: { ...table, rows: [] }, format: 'csv' }, run);
    expect(other.savedTo).toBe(join(run.dir, 'report', 'exports', 'arms-2.csv'));
    expect(readFileSync(csv.savedTo!, 'utf8')).toBe(tableToCsv(table));
    expect(Buffer.from(exportTable({ table, format: 'latex' }, null).base64, 'base64').toString()).toContain(
      '0.250\\\\{\\scriptsize [0.200, 0.300]}',
    );
    expect(exportTable({ table, format: 'md' }, null).filename).toBe('arms.md');
    expect(() => exportTable({ table: { ...table, rows: [{ arm: 'x', r1: 3 }] }, format: 'csv' }, null)).toThrow(
      /format ci/,
    );
  });
  it('ranks a pool by cosine, best first, skipping NaN', () => {
    const pool = { captions: ['a', 'b', 'c', 'd'], photos: ['p', 'q', 'r', null] };
    expect(topMatches([0.1, NaN, 0.9, 0.5], pool, 2)).toEqual([
      { caption: 'c', cosine: 0.9, photo: 'r' },
      { caption: 'd', cosine: 0.5, photo: null },
    ]);
  });
  it('lists each photo once at its best caption when asked; captions without a photo stand alone', () => {
    const pool = { captions: ['a', 'b', 'c', 'd', 'e'], photos: ['p', 'p', 'q', null, null] };
    const row = [0.9, 0.8, 0.7, 0.6, 0.5];
    expect(topMatches(row, pool, 3).map((m) => m.caption)).toEqual(['a', 'b', 'c']);
    expect(topMatches(row, pool, 3, true).map((m) => m.caption)).toEqual(['a', 'c', 'd']);
    expect(topMatches(row, pool, 9, true).map((m) => m.caption)).toEqual(['a', 'c', 'd', 'e']);
  });
  it("ranks a dataset photo's own captions in the pool, ties against it, NaN as unranked", () => {
    const pool = { photos: ['p', 'q', 'p', 'r', 'p'], fromDataset: true };
    const p = { id: 'p', split: 'test' };
    expect(ownCaptions([0.9, 0.5, 0.5, 0.7, NaN], pool, p)).toEqual({
      photo: 'p',
      split: 'test',
      ranks: [1, 4, null],
      photoRank: 1,
    });
    expect(ownCaptions([0.1, 0.5, 0.5, 0.7, 0.2], pool, null)).toBeNull();
    expect(ownCaptions([0.1, 0.5, 0.5, 0.7, 0.2], pool, { id: 'z', split: 'train' })).toEqual({
      photo: 'z',
      split: 'train',
      ranks: null,
      photoRank: null,
    });
    expect(ownCaptions([0.9, 0.5, 0.5, 0.7, 0.2], { ...pool, fromDataset: false }, p)).toEqual({
      photo: 'p',
      split: 'test',
      ranks: null,
      photoRank: null,
    });
    // The photo ranks by its best caption (.5) among photos: r (.7) above, q (.5) ties against it.
    expect(ownCaptions([0.1, 0.5, 0.5, 0.7, 0.2], pool, p)).toEqual({
      photo: 'p',
      split: 'test',
      ranks: [5, 3, 4],
      photoRank: 3,
    });
    expect(ownCaptions([NaN, 0.5, NaN, 0.7, NaN], pool, p)?.photoRank).toBeNull();
  });
});

describe('image drop on a finished experiment', () => {
  it('maps dropped images through each arm and ranks the test captions; bundles the run', async () => {
    const vit = join(home, 'vit.onnx');
    const cfg = { imageSize: 64, patchSize: 8, hidden: 32, depth: 1, heads: 2, mlp: 64 };
    writeFileSync(vit, buildVitOnnx(cfg, randomVitWeights(cfg, 0)));
    const store = new RunStore(join(home, 'runs'));
    const scheduler = new Scheduler(store, { concurrency: 1, worker: workerCommand() });
    const { id } = store.create(
      RunConfig.parse({
        kind: 'experiment',
        version: 1,
        data: world,
        image: { model: vit },
        arms: ['good', 'ntp'],
        seeds: [0],
        train: { epochs: 1, batch: 16, slices: 64 },
        eval: { bootstrap: 100, sweepCounts: [10], sweepRepeats: 1 },
      }),
    );
    scheduler.submit(id);
    await scheduler.idle();
    expect(store.get(id).error).toBeNull();
    const dir = store.dir(id);
    const ds = readDataset(world);
    const trainPhoto = ds.images.find((im) => im.split === 'train')!,
      testPhoto = ds.images.find((im) => im.split === 'test')!;
    const bytes = (im: typeof trainPhoto) => readFileSync(join(world, 'images', im.file!)).toString('base64');
    const images = [
      { name: 'scene.png', base64: bytes(trainPhoto) },
      { name: 'notes.txt', base64: Buffer.from('hello').toString('base64') },
    ];
    const matchImages = async (imgs: typeof images, perPhoto = false) =>
      (await runLabTask({ task: 'match', runDir: dir, images: imgs, pool: 'test', topK: 3, perPhoto })) as MatchResult;
    const r = await matchImages(images);
    expect(r.pool).toMatchObject({ size: 24 * 5, photos: 24 });
    expect(r.arms.map((a) => a.arm)).toEqual(['good', 'ntp']);
    expect(r.skipped.map((s) => s.name)).toEqual(['notes.txt']);
    for (const a of r.arms) {
      expect(a.images.map((i) => i.name)).toEqual(['scene.png']);
      const cos = a.images[0].top.map((m) => m.cosine);
      expect(cos).toHaveLength(3);
      expect([...cos].sort((x, y) => y - x)).toEqual(cos);
      for (const c of cos) expect(Math.abs(c)).toBeLessThanOrEqual(1 + 1e-9);
      expect(readdirSync(join(dir, 'final', `${a.arm}-s0`)).some((f) => /^pool-[0-9a-f]{16}\.npy$/.test(f))).toBe(true);
    }
    // A training photo is recognised as the dataset's own, but its captions are not in the test pool.
    for (const a of r.arms)
      expect(a.images[0].own).toEqual({ photo: trainPhoto.id, split: 'train', ranks: null, photoRank: null });
    // A test photo's 5 own captions are ranked among the 120 test captions, consistent with its top 3.
    const t = await matchImages([{ name: 'test-scene.png', base64: bytes(testPhoto) }]);
    for (const a of t.arms) {
      const own = a.images[0].own!;
      expect(own.photo).toBe(testPhoto.id);
      expect(own.ranks).toHaveLength(5);
      for (const k of own.ranks!) {
        expect(k).toBeGreaterThanOrEqual(1);
        expect(k).toBeLessThanOrEqual(120);
      }
      const inTop = a.images[0].top.filter((m) => m.photo === testPhoto.id).length;
      expect(own.ranks!.filter((k) => k! <= 3).length).toBeLessThanOrEqual(inTop); // equal unless cosines tie exactly
      expect(own.photoRank).toBeLessThanOrEqual(Math.min(...own.ranks!.map((k) => k!))); // a photo's captions rank no better than it
    }
    // One caption per photo: three distinct photos, in cosine order, the test photo among them iff its photo rank is <= 3.
    const per = await matchImages([{ name: 'test-scene.png', base64: bytes(testPhoto) }], true);
    for (const [i, a] of per.arms.entries()) {
      const top = a.images[0].top;
      expect(new Set(top.map((m) => m.photo)).size).toBe(3);
      expect(top[0]).toEqual(t.arms[i].images[0].top[0]);
      expect(top.some((m) => m.photo === testPhoto.id)).toBe(a.images[0].own!.photoRank! <= 3);
    }
    // `prh match` (the drop from the command line) on the same experiment and test photo: the same ranks, summarised.
    const cli = spawnSync(
      process.execPath,
      [join(root, 'bin', 'prh.js'), 'match', dir, join(world, 'images', testPhoto.file!), '--top', '3', '--json'],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(0);
    const out = JSON.parse(cli.stdout) as MatchResult & { ownSummary: OwnSummary[] };
    expect(out.arms.map((a) => a.images[0].own)).toEqual(t.arms.map((a) => a.images[0].own));
    expect(
      out.ownSummary.map((s) => [s.arm, s.photos, s.inTopK, s.medianBestRank, s.photoInTopK, s.medianPhotoRank]),
    ).toEqual(
      t.arms.map((a) => {
        const own = a.images[0].own!,
          best = Math.min(...own.ranks!.map((k) => k!));
        return [a.arm, 1, best <= 3 ? 1 : 0, best, own.photoRank! <= 3 ? 1 : 0, own.photoRank];
      }),
    );
    const missing = spawnSync(process.execPath, [join(root, 'bin', 'prh.js'), 'match', dir, join(home, 'nope.png')], {
      encoding: 'utf8',
    });
    expect([missing.status, missing.stderr.trim()]).toEqual([
      2,
      `error: ${join(home, 'nope.png')}: no such file or folder`,
    ]);
    // Cached pool embeddings give the same answer.
    expect(await matchImages(images)).toEqual(r);
    await expect(matchImages([images[1]])).rejects.toThrow(
      /none of the dropped files is a readable image \(notes.txt\)/,
    );

    const zip = await exportBundle(dir, id, false);
    expect(zip.filename).toBe(`${id}.zip`);
    const files = Object.keys(unzipSync(Buffer.from(zip.base64, 'base64')));
    expect(files).toContain(`${id}/config.json`);
    expect(files.some((f) => f.startsWith(`${id}/final/good-s0/`))).toBe(true);
    expect(files.some((f) => f.includes('/checkpoints/'))).toBe(false);
    const withCheckpoints = Object.keys(unzipSync(Buffer.from((await exportBundle(dir, id, true)).base64, 'base64')));
    expect(withCheckpoints.some((f) => f.includes('/checkpoints/'))).toBe(true);
    expect(existsSync(join(dir, `${id}.zip`))).toBe(false);
  });
});
