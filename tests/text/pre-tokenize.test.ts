// preTokenize against a reference written character by character from Hugging Face's BertNormalizer (clean text,
// CJK spacing, lowercase, strip accents) and BertPreTokenizer (split on whitespace, each punctuation mark a word):
// on real captions (COCO val2017 and Flickr30k's Multi30k files in ../shared/data, when present), on this repo's
// caption fixtures, and on seeded random strings over the characters each rule is about.
import { readFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeText, preTokenize, trainWordPiece } from '../../engine/text';
import { TrainRng } from '../../engine/models';

const isPunct = (ch: string): boolean => {
  const c = ch.codePointAt(0)!;
  return (
    (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) || /\p{P}/u.test(ch)
  );
};
const isCjk = (c: number): boolean =>
  (c >= 0x4e00 && c <= 0x9fff) ||
  (c >= 0x3400 && c <= 0x4dbf) ||
  (c >= 0x20000 && c <= 0x2a6df) ||
  (c >= 0x2a700 && c <= 0x2b73f) ||
  (c >= 0x2b740 && c <= 0x2b81f) ||
  (c >= 0x2b820 && c <= 0x2ceaf) ||
  (c >= 0xf900 && c <= 0xfaff) ||
  (c >= 0x2f800 && c <= 0x2fa1f);

function reference(text: string, lowercase = true, stripAccents = true): string[] {
  let s = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c === 0 || c === 0xfffd || (/\p{Cc}|\p{Cf}/u.test(ch) && !/\s/.test(ch))) continue;
    s += /\s/.test(ch) ? ' ' : isCjk(c) ? ` ${ch} ` : ch;
  }
  if (lowercase) s = s.toLowerCase();
  if (stripAccents) s = s.normalize('NFD').replace(/\p{Mn}/gu, '');
  const words: string[] = [];
  for (const chunk of s.split(' ')) {
    let cur = '';
    for (const ch of chunk)
      if (isPunct(ch)) {
        if (cur) words.push(cur);
        words.push(ch);
        cur = '';
      } else cur += ch;
    if (cur) words.push(cur);
  }
  return words;
}

const SHARED = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data');
const coco = join(SHARED, 'coco', 'captions_val2017.json');
const multi30k = join(SHARED, 'flickr30k-captions', 'train.1.en.gz');
const fixtures = join(import.meta.dirname, '..', 'data', 'fixtures');

// Characters each rule is about: ASCII, accents (precomposed and combining), whitespace and control/format
// characters, CJK (both planes), Unicode punctuation, emoji (surrogate pairs), a lone surrogate, NUL and U+FFFD.
const ALPHABET = [
  ...'aZ09 .,!?-\'"()[]{}`~@#$%^&*_+=|\\/:;<>',
  ...'éÉçÅñßİıǅ',
  '\u0301',
  '\u0327',
  '\t',
  '\n',
  '\r',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u0007',
  '\u001b',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\u00ad',
  '猫',
  '㐀',
  '\u{20001}',
  '豈',
  '。',
  '«',
  '»',
  '—',
  '…',
  '¿',
  '😀',
  '\ud800',
  '\u0000',
  '\ufffd',
];

describe('preTokenize', () => {
  it('equals the character-by-character normaliser on seeded random strings, with and without its options', () => {
    const rng = TrainRng.seeded(0, 'pre-tokenize');
    for (let n = 0; n < 3000; n++) {
      const len = 1 + Math.floor(rng.uniform() * 40);
      const text = Array.from({ length: len }, () => ALPHABET[Math.floor(rng.uniform() * ALPHABET.length)]).join('');
      for (const [lower, strip] of [
        [true, true],
        [false, false],
        [true, false],
        [false, true],
      ] as const)
        expect(preTokenize(text, lower, strip), JSON.stringify(text)).toEqual(reference(text, lower, strip));
    }
  });

  it("equals it on this repo's caption fixtures", () => {
    const files = [join('flickr8k-token', 'Flickr8k.token.txt'), join('flickr30k-token', 'results_20130124.token')];
    const lines = files.flatMap((f) =>
      readFileSync(join(fixtures, f), 'utf8')
        .split('\n')
        .map((l) => l.split('\t')[1] ?? l),
    );
    expect(lines.length).toBeGreaterThan(10);
    for (const t of lines) expect(preTokenize(t)).toEqual(reference(t));
  });

  it.skipIf(!existsSync(coco) || !existsSync(multi30k))(
    'equals it on 50k real captions (COCO val2017, Multi30k)',
    () => {
      const texts = [
        ...(JSON.parse(readFileSync(coco, 'utf8')) as { annotations: { caption: string }[] }).annotations.map(
          (a) => a.caption,
        ),
        ...gunzipSync(readFileSync(multi30k)).toString('utf8').split('\n').slice(0, 25_000),
      ];
      expect(texts.length).toBeGreaterThan(49_000);
      for (const t of texts) expect(preTokenize(t)).toEqual(reference(t));
      // pieces from the word cache (filled by a first pass) equal those of a tokenizer meeting each word anew
      const tk = trainWordPiece(texts.slice(0, 5000), 2000);
      const fresh = trainWordPiece(texts.slice(0, 5000), 2000);
      for (const t of texts.slice(0, 20_000)) encodeText(tk, t);
      for (const t of texts.slice(0, 20_000)) expect(encodeText(tk, t)).toEqual(encodeText(fresh, t));
    },
  );
});
