// Tokenizer (WordPiece: trained on captions or loaded from a HF tokenizer.json) and the JEPA views of a photo.
export {
  SPECIALS,
  trainWordPiece,
  loadTokenizer,
  saveTokenizer,
  encodeText,
  captionIds,
  decodeIds,
  preTokenize,
  type Tokenizer,
} from './tokenizer';
export {
  ViewConfig,
  DEFAULT_VIEWS,
  cutView,
  makeViews,
  type View,
  type ViewArm,
  type Draw,
  type SpecialIds,
} from './views';
export { MAX_VOCAB, MIN_VOCAB, corpusVocabSize, vocabCoverage } from './vocabulary';
