// WordPiece tokenizer: BERT-uncased normalisation and pre-tokenisation, greedy longest-match-first subwords.
// Hand-written because no maintained JS package both trains WordPiece and reads Hugging Face tokenizer.json
// (the HF `tokenizers` binding is a native download). Runs save it as tokenizer.json in the HF layout, so the
// paper's bert-base-uncased file and our trained ones load through the same path.
import { z } from 'zod';
import { writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';
import { readJson } from '../json-file';

export const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

export type Tokenizer = {
  vocab: string[]; // id -> token
  ids: Map<string, number>; // token -> id
  pad: number;
  unk: number;
  cls: number;
  sep: number;
  mask: number;
  lowercase: boolean;
  stripAccents: boolean;
  prefix: string; // continuing-subword prefix, '##'
  maxCharsPerWord: number;
};

// BERT's punctuation: ASCII's non-alphanumeric printables, and every Unicode P* character.
const PUNCT = String.raw`!-\/:-@\[-\x60{-~\p{P}`;
// CJK ideographs (BERT's ranges), each spaced into a word of its own.
const CJK = String.raw`\u{4e00}-\u{9fff}\u{3400}-\u{4dbf}\u{20000}-\u{2a6df}\u{2a700}-\u{2b73f}\u{2b740}-\u{2b81f}\u{2b820}-\u{2ceaf}\u{f900}-\u{faff}\u{2f800}-\u{2fa1f}`;
const DROPPED = /[\0\ufffd]|(?!\s)[\p{Cc}\p{Cf}]/gu; // NUL, U+FFFD, and control/format characters but whitespace
const SPACE = /\s/gu;
const CJK_CHAR = new RegExp(`[${CJK}]`, 'gu');
const MARK = /\p{Mn}/gu;
const WORD = new RegExp(`[${PUNCT}]|[^ ${PUNCT}]+`, 'gu'); // a punctuation mark alone, or a run between spaces and marks

// BertNormalizer (clean text, CJK spacing, lowercase, strip accents) + BertPreTokenizer (whitespace and punctuation),
// as whole-string passes: a regex test per character was ~1 s per 35k captions, paid 4 times by every training run.
export function preTokenize(text: string, lowercase = true, stripAccents = true): string[] {
  let s = text.replace(DROPPED, '').replace(SPACE, ' ').replace(CJK_CHAR, ' $& ');
  if (lowercase) s = s.toLowerCase();
  if (stripAccents) s = s.normalize('NFD').replace(MARK, '');
  return s.match(WORD) ?? [];
}

// Greedy longest-match-first pieces of one word.
function cutWord(tk: Tokenizer, word: string): number[] {
  const chars = [...word];
  if (chars.length > tk.maxCharsPerWord) return [tk.unk];
  const out: number[] = [];
  for (let start = 0; start < chars.length;) {
    let end = chars.length,
      id = -1;
    for (; end > start; end--) {
      const piece = (start > 0 ? tk.prefix : '') + chars.slice(start, end).join('');
      const i = tk.ids.get(piece);
      if (i !== undefined) {
        id = i;
        break;
      }
    }
    if (id < 0) return [tk.unk];
    out.push(id);
    start = end;
  }
  return out;
}

// word -> its pieces, per tokenizer: captions repeat their words, so each distinct word is cut once.
const pieceCache = new WeakMap<Tokenizer, Map<string, number[]>>();

// Caption -> token ids without [CLS]/[SEP] (the views add them after cropping).
export function encodeText(tk: Tokenizer, text: string): number[] {
  const pieces = pieceCache.get(tk) ?? pieceCache.set(tk, new Map()).get(tk)!;
  return preTokenize(text, tk.lowercase, tk.stripAccents).flatMap((w) => {
    let ids = pieces.get(w);
    if (!ids) pieces.set(w, (ids = cutWord(tk, w)));
    return ids;
  });
}

// A caption's ids as every model input holds them: cut to leave room for [CLS] and [SEP] in maxLen, and never
// empty (a caption of only stripped characters still yields [UNK]).
export function captionIds(tk: Tokenizer, text: string, maxLen: number): number[] {
  const ids = encodeText(tk, text).slice(0, maxLen - 2);
  return ids.length ? ids : [tk.unk];
}

export const decodeIds = (tk: Tokenizer, ids: ArrayLike<number>): string[] =>
  Array.from(ids, (i) => tk.vocab[i] ?? '[?]');

function build(
  vocab: string[],
  opts: { lowercase: boolean; stripAccents: boolean; prefix: string; maxCharsPerWord: number; unk: string },
  source: string,
): Tokenizer {
  const ids = new Map(vocab.map((t, i) => [t, i]));
  const need = (t: string) => {
    const i = ids.get(t);
    if (i === undefined) throw new InputError(`${source}: vocabulary lacks the special token ${t}`);
    return i;
  };
  const { unk, ...rest } = opts;
  return {
    vocab,
    ids,
    pad: need('[PAD]'),
    unk: need(unk),
    cls: need('[CLS]'),
    sep: need('[SEP]'),
    mask: need('[MASK]'),
    ...rest,
  };
}

// Training as Hugging Face's WordPieceTrainer does it (a BPE trainer with the '##' prefix): start from characters,
// repeatedly merge the most frequent adjacent pair (ties: the lexically smallest) until the vocabulary is full.
export function trainWordPiece(texts: Iterable<string>, vocabSize: number, minFrequency = 2): Tokenizer {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of preTokenize(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const words = [...counts.keys()].sort();
  const freq = words.map((w) => counts.get(w)!);
  const vocab: string[] = [...SPECIALS];
  const seen = new Set<string>(vocab);
  const addTok = (t: string) => {
    if (!seen.has(t)) {
      seen.add(t);
      vocab.push(t);
    }
  };
  // Alphabet first (sorted), so every word is encodable: first chars bare, later chars with the prefix.
  const alphabet = new Set<string>();
  const symbols = words.map((w) => [...w].map((ch, i) => (i ? '##' + ch : ch)));
  for (const s of symbols) for (const x of s) alphabet.add(x);
  [...alphabet].sort().forEach(addTok);
  // pair "a b" -> weighted count, and the words holding it (kept incrementally so each merge touches few words).
  const pairCount = new Map<string, number>();
  const pairWords = new Map<string, Set<number>>();
  const key = (a: string, b: string) => `${a} ${b}`;
  const addPairs = (wi: number, sign: number) => {
    const s = symbols[wi];
    for (let i = 0; i + 1 < s.length; i++) {
      const k = key(s[i], s[i + 1]);
      pairCount.set(k, (pairCount.get(k) ?? 0) + sign * freq[wi]);
      if (sign > 0) (pairWords.get(k) ?? pairWords.set(k, new Set()).get(k)!).add(wi);
    }
  };
  symbols.forEach((_, wi) => addPairs(wi, 1));
  while (vocab.length < vocabSize) {
    let best = '',
      bestCount = 0;
    for (const [k, c] of pairCount)
      if (c > bestCount || (c === bestCount && c > 0 && k < best)) [best, bestCount] = [k, c];
    if (bestCount < minFrequency) break;
    const [a, b] = best.split(' ');
    const merged = a + b.replace(/^##/, '');
    addTok(merged);
    for (const wi of pairWords.get(best) ?? []) {
      const s = symbols[wi];
      addPairs(wi, -1);
      const next: string[] = [];
      for (let i = 0; i < s.length; i++)
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          next.push(merged);
          i++;
        } else next.push(s[i]);
      symbols[wi] = next;
      addPairs(wi, 1);
    }
    pairWords.delete(best);
    pairCount.delete(best);
  }
  return build(
    vocab,
    { lowercase: true, stripAccents: true, prefix: '##', maxCharsPerWord: 100, unk: '[UNK]' },
    'trained tokenizer',
  );
}

// The subset of HF tokenizer.json this reads: a WordPiece model with a BertNormalizer.
const HfTokenizerJson = z.object({
  normalizer: z
    .object({ type: z.string(), lowercase: z.boolean().optional(), strip_accents: z.boolean().nullable().optional() })
    .nullable()
    .optional(),
  model: z.object({
    type: z.literal('WordPiece'),
    unk_token: z.string().default('[UNK]'),
    continuing_subword_prefix: z.string().default('##'),
    max_input_chars_per_word: z.number().int().positive().default(100),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
  }),
});

export function loadTokenizer(path: string): Tokenizer {
  const { model, normalizer } = readJson(path, HfTokenizerJson, 'a Hugging Face tokenizer.json with a WordPiece model');
  const vocab: string[] = [];
  for (const [tok, id] of Object.entries(model.vocab)) vocab[id] = tok;
  for (let i = 0; i < vocab.length; i++)
    if (vocab[i] === undefined) throw new InputError(`${path}: vocabulary has no token with id ${i}`);
  const lowercase = normalizer?.lowercase ?? true;
  // HF: strip_accents null means "follow lowercase"
  const stripAccents = normalizer?.strip_accents ?? lowercase;
  return build(
    vocab,
    {
      lowercase,
      stripAccents,
      prefix: model.continuing_subword_prefix,
      maxCharsPerWord: model.max_input_chars_per_word,
      unk: model.unk_token,
    },
    path,
  );
}

// Writes the HF layout (normalizer, pre-tokenizer, WordPiece model, special tokens) so HF can load it too.
export function saveTokenizer(tk: Tokenizer, path: string): void {
  const specials = [tk.pad, tk.unk, tk.cls, tk.sep, tk.mask];
  writeJsonAtomic(path, {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((id) => ({
      id,
      content: tk.vocab[id],
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: tk.stripAccents,
      lowercase: tk.lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [tk.ids.get(t)], tokens: [t] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: tk.prefix, cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: tk.vocab[tk.unk],
      continuing_subword_prefix: tk.prefix,
      max_input_chars_per_word: tk.maxCharsPerWord,
      vocab: Object.fromEntries(tk.vocab.map((t, i) => [t, i])),
    },
  });
}
