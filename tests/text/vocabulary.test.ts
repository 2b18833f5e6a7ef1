// The vocabulary size chosen from a corpus, and the coverage report, against counts worked out by hand.
import { describe, expect, it } from 'vitest';
import { MAX_VOCAB, MIN_VOCAB, corpusVocabSize, trainWordPiece, vocabCoverage } from '../../engine/text';

describe('corpusVocabSize', () => {
  it('specials + alphabet + words seen twice, floored at the world size', () => {
    // 1,200 words w0..w1199, each twice: alphabet = 'w' + ##0..##9 (11 symbols); 5 specials.
    const texts = Array.from({ length: 1200 }, (_, i) => `w${i} w${i}`);
    expect(corpusVocabSize(texts)).toEqual({ size: 5 + 11 + 1200, words: 1200, frequentWords: 1200 });
    // the same words once each: none is frequent, so the floor
    expect(corpusVocabSize(Array.from({ length: 1200 }, (_, i) => `w${i}`))).toEqual({
      size: MIN_VOCAB,
      words: 1200,
      frequentWords: 0,
    });
    expect(corpusVocabSize(Array.from({ length: 40_000 }, (_, i) => `w${i} w${i}`)).size).toBe(MAX_VOCAB);
  });
});

describe('vocabCoverage', () => {
  it('counts [UNK] tokens (a word with an unseen character) and words cut into pieces', () => {
    const tk = trainWordPiece(['a dog runs', 'a dog runs'], 1000); // every pair seen twice: whole words
    expect(vocabCoverage(tk, ['a dog runs'])).toEqual({
      tokens: 3,
      unknown: 0,
      unknownShare: 0,
      words: 3,
      splitWords: 0,
      splitShare: 0,
    });
    // dogs = dog + ##s (## s from runs); zebra has z, unseen -> one [UNK]
    expect(vocabCoverage(tk, ['a dogs zebra'])).toEqual({
      tokens: 4,
      unknown: 1,
      unknownShare: 0.25,
      words: 3,
      splitWords: 1,
      splitShare: 1 / 3,
    });
  });
});
