// The vocabulary size of a trained WordPiece chosen from the corpus, and how well a tokenizer covers captions.
// A fixed 1,000 fits the procedural world (about a hundred words) but not real captions: Flickr8k has 8,902
// distinct words, so with 1,000 pieces most of its words would be cut into fragments.
import { SPECIALS, encodeText, preTokenize, type Tokenizer } from './tokenizer';

export const MIN_VOCAB = 1000; // the world's size: below this the chosen size changes nothing (merges stop first)
export const MAX_VOCAB = 30522; // BERT's

/** Specials + the alphabet + every word seen at least `minFrequency` times (each can become a whole token). */
export function corpusVocabSize(
  texts: Iterable<string>,
  minFrequency = 2,
): { size: number; words: number; frequentWords: number } {
  const counts = new Map<string, number>();
  const alphabet = new Set<string>();
  for (const t of texts)
    for (const w of preTokenize(t)) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      [...w].forEach((ch, i) => alphabet.add(i ? `##${ch}` : ch));
    }
  const frequentWords = [...counts.values()].filter((c) => c >= minFrequency).length;
  const size = Math.min(MAX_VOCAB, Math.max(MIN_VOCAB, SPECIALS.length + alphabet.size + frequentWords));
  return { size, words: counts.size, frequentWords };
}

export type Coverage = {
  tokens: number;
  unknown: number;
  unknownShare: number;
  words: number;
  splitWords: number;
  splitShare: number;
};

/** [UNK] tokens among all tokens, and words cut into more than one piece, over `texts`. */
export function vocabCoverage(tk: Tokenizer, texts: Iterable<string>): Coverage {
  let tokens = 0,
    unknown = 0,
    words = 0,
    splitWords = 0;
  for (const t of texts) {
    for (const w of preTokenize(t, tk.lowercase, tk.stripAccents)) {
      const ids = encodeText(tk, w);
      words++;
      tokens += ids.length;
      if (ids.length > 1) splitWords++;
      for (const id of ids) if (id === tk.unk) unknown++;
    }
  }
  return {
    tokens,
    unknown,
    unknownShare: tokens ? unknown / tokens : 0,
    words,
    splitWords,
    splitShare: words ? splitWords / words : 0,
  };
}
