import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ANNOTATORS,
  captionScene,
  drawScenes,
  generateWorld,
  inspectDataset,
  NUISANCE,
  NUISANCE_WORDS,
  openDataset,
  previewWorld,
  readDataset,
  resolveWorld,
  sceneKey,
  STYLE_OF,
  STYLES,
  type WorldCaption,
} from '../../engine/data';
import { InputError } from '../../engine/errors';
import { falseTaggedFacts, falseTextFacts } from './caption-truth';

const TINY = { train: 60, val: 20, test: 20 };
const tmp = mkdtempSync(join(tmpdir(), 'prh-world-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const gen = (name: string, opts: Parameters<typeof generateWorld>[1]) =>
  generateWorld(join(tmp, name), { splits: TINY, ...opts });

describe('presets', () => {
  it('default is paper-like: diversity off, weak nuisance (2 tokens, c=0.5); flags override', () => {
    expect(resolveWorld({})).toMatchObject({
      preset: 'paper-like',
      diversity: false,
      nuisance: 'weak',
      nuisanceTokens: 2,
      consistency: 0.5,
      imageSize: 64,
      splits: { train: 5000, val: 1014, test: 1000 },
    });
    expect(resolveWorld({ preset: 'strong' })).toMatchObject({
      diversity: true,
      nuisance: 'strong',
      nuisanceTokens: 6,
      consistency: 1,
    });
    expect(resolveWorld({ preset: 'null' })).toMatchObject({ diversity: false, nuisance: 'none', nuisanceTokens: 0 });
    expect(resolveWorld({ preset: 'null', diversity: true, nuisance: 'medium' })).toMatchObject({
      diversity: true,
      nuisance: 'medium',
      nuisanceTokens: 3,
      consistency: 0.8,
    });
    expect(() => resolveWorld({ imageSize: 3 })).toThrow(InputError);
  });
});

describe('generation', () => {
  const a = gen('a', { seed: 7 });
  const b = gen('b', { seed: 7 });
  const c = gen('c', { seed: 8 });
  const strip = (dir: string) => ({ ...readDataset(dir), createdAt: undefined });

  it('is deterministic by seed: same dataset.json and same PNG bytes; another seed differs', () => {
    expect(strip(a.dir)).toEqual(strip(b.dir));
    const files = readdirSync(join(a.dir, 'images')).sort();
    expect(files).toHaveLength(100);
    for (const f of files)
      expect(readFileSync(join(a.dir, 'images', f)).equals(readFileSync(join(b.dir, 'images', f)))).toBe(true);
    expect(strip(c.dir).images.map((im) => im.captions[0].text)).not.toEqual(
      strip(a.dir).images.map((im) => im.captions[0].text),
    );
    expect(readFileSync(join(c.dir, 'images', files[0])).equals(readFileSync(join(a.dir, 'images', files[0])))).toBe(
      false,
    );
  });

  it('writes the layout: Flickr30k-shaped splits, 5 captions, annotator + style ids, recorded eval caption, world state', () => {
    const ds = readDataset(a.dir);
    expect(ds.source).toBe('world');
    expect(ds.images.map((im) => im.split)).toEqual([
      ...Array(60).fill('train'),
      ...Array(20).fill('val'),
      ...Array(20).fill('test'),
    ]);
    for (const im of ds.images) {
      expect(im.captions).toHaveLength(5);
      expect(new Set(im.captions.map((c) => c.annotator))).toEqual(new Set([0, 1, 2, 3, 4])); // 5 different annotators
      expect(im.captions.every((c) => c.style !== undefined && c.style < STYLES.length)).toBe(true);
      expect(im.state?.objects.length).toBeGreaterThan(0);
      expect(im.captions.every((c) => /^[a-z,;:|]+( [a-z,;:|]+)*$/.test(c.text))).toBe(true); // lowercase words, single spaces
    }
    expect(new Set(ds.images.map((im) => im.evalCaption)).size).toBeGreaterThan(1); // drawn, not fixed
    expect(ds.params).toMatchObject({ preset: 'paper-like', seed: 7, diversity: false, nuisance: 'weak' });
  });

  it('scene i does not depend on the split sizes, and the preview shows exactly what generation writes', () => {
    const small = gen('small', { seed: 7, splits: { train: 3, val: 1, test: 1 } });
    const big = readDataset(a.dir).images.slice(0, 5);
    expect(readDataset(small.dir).images.map((im) => [im.state, im.captions])).toEqual(
      big.map((im) => [im.state, im.captions]),
    );
    const p = previewWorld({ seed: 7, splits: TINY, count: 4, from: 61 });
    const ds = readDataset(a.dir);
    p.forEach((it, k) => {
      expect(it.captions).toEqual(ds.images[61 + k].captions);
      expect(it.split).toBe('val');
      expect(it.png!.equals(readFileSync(join(a.dir, 'images', ds.images[61 + k].file!)))).toBe(true);
    });
    expect(() => previewWorld({ splits: TINY, count: 5, from: 98 })).toThrow(InputError);
  });

  it('refuses to overwrite a dataset without force', () => {
    expect(() => generateWorld(a.dir, { splits: TINY, seed: 7 })).toThrow(/--force/);
  });

  it('never repeats a scene, within or across splits (tiny world and the full default world)', () => {
    const keys = readDataset(a.dir).images.map((im) => sceneKey(im.state as Parameters<typeof sceneKey>[0]));
    expect(new Set(keys).size).toBe(keys.length);
    const full = drawScenes(0, 7014).map(sceneKey);
    expect(new Set(full).size).toBe(7014);
  });

  it('images are 64x64 PNGs that show the scene: object colour at its centre, background in empty cells', async () => {
    const ds = readDataset(a.dir);
    const RGB: Record<string, number[]> = {
      red: [220, 30, 30],
      blue: [35, 75, 225],
      white: [245, 245, 245],
      black: [25, 25, 25],
    };
    let checked = 0;
    for (const im of ds.images) {
      const img = await loadImage(readFileSync(join(a.dir, 'images', im.file!)));
      expect([img.width, img.height]).toEqual([64, 64]);
      const ctx = createCanvas(64, 64).getContext('2d');
      ctx.drawImage(img, 0, 0);
      const px = (cell: number) => {
        const [x, y] = [((cell % 3) + 0.5) * (64 / 3), (Math.floor(cell / 3) + 0.5) * (64 / 3)];
        const d = ctx.getImageData(Math.round(x) - 1, Math.round(y) - 1, 3, 3).data; // 3x3 mean
        return [0, 1, 2].map(
          (ch) =>
            (d[ch] +
              d[4 + ch] +
              d[8 + ch] +
              d[12 + ch] +
              d[16 + ch] +
              d[20 + ch] +
              d[24 + ch] +
              d[28 + ch] +
              d[32 + ch]) /
            9,
        );
      };
      const close = (got: number[], want: number[]) => got.every((g, i) => Math.abs(g - want[i]) < 0.15 * want[i] + 25);
      for (const o of im.state!.objects)
        // shapes whose cell centre stays inside the fill under any position jitter
        if (RGB[o.colour] && ['circle', 'square', 'hexagon'].includes(o.shape) && o.size !== 'small') {
          expect(close(px(o.cell), RGB[o.colour]), `${im.id} ${o.colour} ${o.shape}`).toBe(true);
          checked++;
        }
      const empty = [0, 1, 2, 3, 4, 5, 6, 7, 8].find(
        (k) =>
          !im.state!.objects.some(
            (o) => Math.abs((o.cell % 3) - (k % 3)) + Math.abs(Math.floor(o.cell / 3) - Math.floor(k / 3)) <= 1,
          ),
      );
      if (empty !== undefined && RGB[im.state!.background]) {
        expect(close(px(empty), RGB[im.state!.background]), `${im.id} background`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('inspect counts the world and reports a missing and an unreadable image', () => {
    const d = gen('broken', { seed: 1 });
    const files = readdirSync(join(d.dir, 'images')).sort();
    unlinkSync(join(d.dir, 'images', files[0]));
    writeFileSync(join(d.dir, 'images', files[1]), 'not a png');
    const r = inspectDataset(openDataset(d.dir));
    expect(r).toMatchObject({ images: 100, captions: 500, splits: TINY, format: 'layout' });
    expect(r.files).toMatchObject({ present: true, listed: 100, missing: 1, unreadable: 1 });
    expect(r.files.problems).toEqual([
      `${files[0]}: missing`,
      `${files[1]}: not a readable image (no PNG, JPEG, GIF, WebP, BMP or AVIF signature)`,
    ]);
    expect(r.world).toMatchObject({ annotators: 5, styles: 16 });
  });
});

describe('captions', () => {
  const scenes = drawScenes(3, 1500);
  const caption = (knobs: Parameters<typeof captionScene>[3], n = scenes.length) =>
    scenes.slice(0, n).map((s, i) => captionScene(s, 3, i, knobs));

  it('every caption states only true facts of its stored scene (tags and text), in every setting', () => {
    for (const preset of ['paper-like', 'strong', 'null'] as const) {
      const d = gen(`truth-${preset}`, { seed: 11, preset });
      const p = resolveWorld({ seed: 11, preset });
      const stored = readDataset(d.dir);
      const scenesAgain = drawScenes(11, 100);
      stored.images.forEach((im, i) => {
        const again = captionScene(scenesAgain[i], 11, i, { diversity: p.diversity, nuisance: NUISANCE[p.nuisance] });
        again.captions.forEach((c, k) => {
          expect(c.text).toBe(im.captions[k].text); // the tags describe the stored text
          expect(falseTaggedFacts(c.tokens, im.state!), c.text).toEqual([]);
          expect(falseTextFacts(im.captions[k].text, im.state!), c.text).toEqual([]);
        });
      });
    }
    // many more scenes with every wording variant on
    for (const [i, sc] of caption({ diversity: true, nuisance: NUISANCE.strong }).entries())
      for (const c of sc.captions) expect(falseTaggedFacts(c.tokens, scenes[i])).toEqual([]);
  });

  it('the truth checks can fail: a wrong colour, cell or count is caught', () => {
    const s = { background: 'grey', objects: [{ shape: 'circle', colour: 'red', size: 'small', cell: 0 }] } as const;
    const st = { background: s.background, objects: [...s.objects] };
    const obj = (word: string) => ({ word, ref: { kind: 'object' as const, object: 0, phrase: 0 } });
    expect(falseTaggedFacts([obj('red'), obj('circle'), obj('top'), obj('left')], st)).toEqual([]);
    expect(falseTaggedFacts([obj('blue'), obj('circle')], st)).toHaveLength(1);
    expect(falseTaggedFacts([obj('red'), obj('circle'), obj('bottom'), obj('left')], st)).toHaveLength(1);
    expect(falseTaggedFacts([obj('circle'), { word: 'red', ref: { kind: 'frame' } }], st)).toHaveLength(1);
    expect(falseTextFacts('two shapes : red circle top right', st)).toEqual([
      '"two" (count) is not in the scene',
      '"right" (col) is not in the scene',
    ]);
  });

  it('diversity off: the five captions are one canonical wording, differing only by nuisance; null preset: identical', () => {
    for (const sc of caption({ diversity: false, nuisance: NUISANCE.medium }, 300)) {
      const content = sc.captions.map((c) =>
        c.tokens
          .filter((t) => t.ref.kind !== 'nuisance')
          .map((t) => t.word)
          .join(' '),
      );
      expect(new Set(content).size).toBe(1);
    }
    for (const sc of caption({ diversity: false, nuisance: NUISANCE.none }, 300))
      expect(new Set(sc.captions.map((c) => c.text)).size).toBe(1);
  });

  it('diversity on: five templates, synonyms and partial mentions make the wordings differ', () => {
    const all = caption({ diversity: true, nuisance: NUISANCE.none }, 300);
    const distinct = all.map((sc) => new Set(sc.captions.map((c) => c.text)).size);
    expect(distinct.reduce((a, b) => a + b) / distinct.length).toBeGreaterThan(4.8);
    const first = all.flatMap((sc) => sc.captions.map((c) => c.text.split(' ')[0]));
    expect(new Set(first).size).toBeGreaterThan(20); // framings and synonyms vary
    // partial mentions: some captions name fewer objects than the scene has
    const named = all.flatMap((sc, i) =>
      sc.captions.map(
        (c) =>
          new Set(c.tokens.flatMap((t) => (t.ref.kind === 'object' ? [t.ref.object] : []))).size /
          scenes[i].objects.length,
      ),
    );
    expect(named.filter((f) => f < 1).length / named.length).toBeGreaterThan(0.1);
    expect(Math.max(...all.flatMap((sc) => sc.captions.map((c) => c.tokens.length)))).toBeLessThanOrEqual(32);
  });

  it('nuisance: n tokens per caption, consistent within a caption (P(own style) = c + (1-c)/16), independent across captions', () => {
    for (const level of ['weak', 'medium', 'strong'] as const) {
      const { tokens: n, consistency: c } = NUISANCE[level];
      const all = caption({ diversity: true, nuisance: NUISANCE[level] });
      let own = 0,
        total = 0,
        same = 0,
        pairs = 0;
      const pairCounts = Array.from({ length: 16 }, () => new Array<number>(16).fill(0));
      for (const sc of all) {
        for (const cap of sc.captions) {
          const nz = cap.tokens.filter((t) => t.ref.kind === 'nuisance');
          expect(nz).toHaveLength(n);
          expect(nz.every((t) => NUISANCE_WORDS.includes(t.word))).toBe(true);
          own += nz.filter((t) => STYLE_OF.get(t.word) === cap.style).length;
          total += n;
        }
        const st = sc.captions.map((x: WorldCaption) => x.style!);
        for (let j = 0; j < ANNOTATORS; j++)
          for (let k = j + 1; k < ANNOTATORS; k++) {
            same += +(st[j] === st[k]);
            pairs++;
          }
        pairCounts[st[0]][st[1]]++;
      }
      // within: the measured share of a caption's nuisance words from its own style
      expect(Math.abs(own / total - (c + (1 - c) / 16)), level).toBeLessThan(0.02);
      // across: two captions of one scene share a style at chance rate 1/16
      expect(Math.abs(same / pairs - 1 / 16), level).toBeLessThan(0.012);
      // and caption 0's style says nothing about caption 1's: chi-square of the 16x16 table near its df (225)
      const N = all.length,
        row = pairCounts.map((r) => r.reduce((a, b) => a + b)),
        col = pairCounts[0].map((_, k) => pairCounts.reduce((a, r) => a + r[k], 0));
      let chi2 = 0;
      for (let j = 0; j < 16; j++)
        for (let k = 0; k < 16; k++) {
          const e = (row[j] * col[k]) / N;
          if (e > 0) chi2 += (pairCounts[j][k] - e) ** 2 / e;
        }
      expect(chi2, level).toBeLessThan(225 + 4 * Math.sqrt(2 * 225)); // p < 1e-4 bound
    }
    for (const sc of caption({ diversity: true, nuisance: NUISANCE.none }, 200))
      for (const cap of sc.captions)
        expect(cap.tokens.some((t) => NUISANCE_WORDS.includes(t.word)) || cap.style !== null).toBe(false);
  });

  it('wording and nuisance are separate knobs: the nuisance level leaves the wording unchanged', () => {
    const plain = caption({ diversity: true, nuisance: NUISANCE.none }, 100);
    const noisy = caption({ diversity: true, nuisance: NUISANCE.strong }, 100);
    noisy.forEach((sc, i) =>
      sc.captions.forEach((c, k) =>
        expect(
          c.tokens
            .filter((t) => t.ref.kind !== 'nuisance')
            .map((t) => t.word)
            .join(' '),
        ).toBe(plain[i].captions[k].text),
      ),
    );
  });
});
