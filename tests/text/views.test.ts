// Statistics of the JEPA views (docs/reference.md#views) and the WordPiece tokenizer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrainRng } from '../../engine/models';
import {
  DEFAULT_VIEWS,
  captionIds,
  encodeText,
  loadTokenizer,
  makeViews,
  saveTokenizer,
  trainWordPiece,
} from '../../engine/text';
import { photoViews } from '../../engine/train';

const sp = { cls: 2, sep: 3, mask: 4 };
const captions = Array.from({ length: 5 }, (_, c) => Array.from({ length: 20 }, (_, i) => 100 + c * 100 + i)); // caption c holds ids c00..c19

describe('views', () => {
  const rng = TrainRng.seeded(7, 'views-test');
  const draws = Array.from({ length: 3000 }, () => ({
    good: makeViews(rng, captions, 'good', DEFAULT_VIEWS, sp),
    bad: makeViews(rng, captions, 'bad', DEFAULT_VIEWS, sp),
  }));
  it('8 views, 2 global first with 50-100% spans, 6 local with 15-50%', () => {
    for (const { good, bad } of draws.slice(0, 500))
      for (const vs of [good, bad]) {
        expect(vs).toHaveLength(8);
        vs.forEach((v, i) => {
          const [lo, hi] = i < 2 ? [0.5, 1] : [0.15, 0.5];
          expect(v.length).toBeGreaterThanOrEqual(Math.max(1, Math.round(lo * 20)));
          expect(v.length).toBeLessThanOrEqual(Math.round(hi * 20));
          expect(v.ids[0]).toBe(sp.cls);
          expect(v.ids[v.ids.length - 1]).toBe(sp.sep);
          expect(v.start + v.length).toBeLessThanOrEqual(20);
        });
      }
    const meanLocal = draws.flatMap((d) => d.good.slice(2)).reduce((s, v) => s + v.length, 0) / (draws.length * 6);
    expect(meanLocal / 20).toBeGreaterThan(0.3);
    expect(meanLocal / 20).toBeLessThan(0.35); // E[frac] = .325
  });
  it('masks 15% of tokens with [MASK]', () => {
    let masked = 0,
      total = 0;
    for (const d of draws)
      for (const v of d.good) {
        masked += v.masked.length;
        total += v.length;
        for (const i of v.masked) expect(v.ids[i + 1]).toBe(sp.mask);
        expect(v.masked.length).toBeLessThan(v.length);
      }
    expect(masked / total).toBeGreaterThan(0.14);
    expect(masked / total).toBeLessThan(0.16);
  });
  it('good views draw captions with replacement (E distinct = 5(1-0.8^8) = 4.16); bad views use one caption', () => {
    const distinct = draws.map((d) => new Set(d.good.map((v) => v.caption)).size);
    const mean = distinct.reduce((a, b) => a + b, 0) / distinct.length;
    expect(mean).toBeGreaterThan(4.08);
    expect(mean).toBeLessThan(4.24);
    for (const d of draws) {
      expect(new Set(d.bad.map((v) => v.caption)).size).toBe(1);
      for (const v of d.bad)
        for (const id of v.ids.slice(1, -1)) if (id !== sp.mask) expect(Math.floor(id / 100) - 1).toBe(v.caption);
    }
    const badCaps = draws.map((d) => d.bad[0].caption);
    for (let c = 0; c < 5; c++) expect(badCaps.filter((x) => x === c).length / badCaps.length).toBeGreaterThan(0.15);
  });
  it('the inspector returns both arms for one photo from one stream', () => {
    const tk = trainWordPiece(
      ['a red circle at the left', 'blue square , right', 'a green star', 'the red ring', 'purple cross top'],
      200,
      1,
    );
    const v = photoViews(
      tk,
      ['a red circle at the left', 'blue square , right', 'a green star', 'the red ring', 'purple cross top'],
      { views: DEFAULT_VIEWS, seed: 3, photo: 'img-1' },
    );
    expect(v.good).toHaveLength(8);
    expect(v.bad).toHaveLength(8);
    expect(new Set(v.bad.map((x) => x.caption)).size).toBe(1);
    expect(v.good[0].tokens[0]).toBe('[CLS]');
  });
});

describe('WordPiece tokenizer', () => {
  const texts = [
    'A red circle at the left.',
    'Two blue squares, on the right!',
    'a red circle and a green star',
    'Café au lait circles',
  ];
  it('trains, splits punctuation, lowercases, strips accents, and round-trips through tokenizer.json', () => {
    const tk = trainWordPiece(texts, 120, 1);
    expect(tk.vocab.slice(0, 5)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    const ids = encodeText(tk, 'A red CIRCLE, café!');
    expect(ids.map((i) => tk.vocab[i]).join(' ')).toMatch(/^a red circle , cafe !$/);
    const pieces = encodeText(tk, 'starcircles').map((i) => tk.vocab[i]);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.slice(1).every((p) => p.startsWith('##'))).toBe(true);
    expect(pieces.map((p) => p.replace(/^##/, '')).join('')).toBe('starcircles');
    expect(encodeText(tk, 'ζ')).toEqual([tk.unk]);
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    saveTokenizer(tk, join(dir, 'tokenizer.json'));
    const back = loadTokenizer(join(dir, 'tokenizer.json'));
    expect(back.vocab).toEqual(tk.vocab);
    expect(encodeText(back, 'zebra circles')).toEqual(encodeText(tk, 'zebra circles'));
    writeFileSync(join(dir, 'bpe.json'), JSON.stringify({ model: { type: 'BPE', vocab: {} } }));
    expect(() => loadTokenizer(join(dir, 'bpe.json'))).toThrow(
      /bpe\.json: not a Hugging Face tokenizer\.json with a WordPiece model: model\.type: /,
    );
  });
  it('captionIds leaves room for [CLS] and [SEP] and is never empty', () => {
    const tk = trainWordPiece(texts, 120, 1);
    const all = encodeText(tk, 'a red circle and a green star');
    expect(captionIds(tk, 'a red circle and a green star', 5)).toEqual(all.slice(0, 3));
    expect(captionIds(tk, 'a red circle and a green star', 64)).toEqual(all);
    expect(captionIds(tk, '!?', 64)).toEqual(encodeText(tk, '!?'));
    expect(captionIds(tk, '\u0301\u0301', 64)).toEqual([tk.unk]); // only combining accents: stripped to nothing
  });
});
