// Five captions per scene, each by a different annotator, each with its own nuisance.
// Annotators differ in template (framing, connectors, word order), synonyms, object order and which
// details they mention; with diversity off all write template 0 with first synonyms and full mentions.
import {
  BACKGROUND_WORDS,
  CENTRE_WORDS,
  COL_WORDS,
  COLOUR_WORDS,
  COUNT_WORDS,
  RELATIONS,
  RELATION_WORDS,
  ROW_WORDS,
  SHAPE_WORDS,
  SIZE_WORDS,
  relationHolds,
  type Relation,
} from './lexicon';
import { drawNuisance, STYLES, type Nuisance } from './nuisance';
import { WorldRng } from './rng';
import type { Scene } from './scene';

// What each word of a caption stands for; `phrase` numbers the phrases naming one object (it may be named twice).
export type Ref =
  | { kind: 'frame' }
  | { kind: 'object'; object: number; phrase: number }
  | { kind: 'background' }
  | { kind: 'count' }
  | { kind: 'relation'; a: number; b: number; relation: Relation }
  | { kind: 'nuisance'; style: number };
export type Token = { word: string; ref: Ref };
export type WorldCaption = { text: string; tokens: Token[]; annotator: number; style: number | null };
export type SceneCaptions = { captions: WorldCaption[]; evalCaption: number };
export type CaptionKnobs = { diversity: boolean; nuisance: Nuisance };

export const ANNOTATORS = 5;
// Mention probabilities (docs/reference.md#scenes-and-captions); size varies by annotator.
const P_EXTRA_OBJECT = 0.85,
  P_COLOUR = 0.85,
  P_POSITION = 0.8,
  P_BACKGROUND = 0.8,
  P_RELATION = 0.5;
const P_SIZE = [0.6, 0.7, 0.8, 0.65, 0.75];

const FRAME: Ref = { kind: 'frame' };
const tag = (ref: Ref, words: readonly string[]): Token[] => words.map((word) => ({ word, ref }));
const joined = (parts: Token[][], sep: string): Token[] =>
  parts.flatMap((p, i) => (i ? [...tag(FRAME, [sep]), ...p] : p));

class Annotator {
  private phrases = 0;
  constructor(
    readonly id: number,
    private readonly scene: Scene,
    private readonly rng: WorldRng,
    private readonly diverse: boolean,
  ) {}

  private word(options: readonly string[]): string {
    return this.diverse ? this.rng.pick(options) : options[0];
  }
  private mentions(p: number): boolean {
    return !this.diverse || this.rng.chance(p);
  }

  // e.g. ['top', 'left'], ['left'] (middle row), ['top'] (centre column), ['centre'] (cell 4)
  private position(cell: number): string[] {
    const [r, c] = [Math.floor(cell / 3), cell % 3];
    if (r === 1 && c === 1) return [this.word(CENTRE_WORDS)];
    return [...(r !== 1 ? [this.word(ROW_WORDS[r])] : []), ...(c !== 1 ? [this.word(COL_WORDS[c])] : [])];
  }

  private objectPhrase(i: number): Token[] {
    const o = this.scene.objects[i];
    const S = this.word(SHAPE_WORDS[o.shape]);
    const C = this.mentions(P_COLOUR) ? this.word(COLOUR_WORDS[o.colour]) : null;
    const Z = this.mentions(P_SIZE[this.id]) ? this.word(SIZE_WORDS[o.size]) : null;
    const P = this.mentions(P_POSITION) ? this.position(o.cell) : null;
    const opt = (w: string | null) => (w ? [w] : []);
    const at = (prep: string) => (P ? [prep, ...P] : []);
    let ws: string[];
    switch (this.id) {
      case 0: // small red circle at top left
        ws = [...opt(Z), ...opt(C), S, ...at(o.cell === 4 ? 'in' : Math.floor(o.cell / 3) === 1 ? 'on' : 'at')];
        break;
      case 1: // red small circle top left
        ws = [...opt(C), ...opt(Z), S, ...(P ?? [])];
        break;
      case 2: // small circle in red at top left
        ws = [...opt(Z), S, ...(C ? ['in', C] : []), ...at('at')];
        break;
      case 3: // red circle , small , top left
        ws = [...opt(C), S, ...(Z ? [',', Z] : []), ...(P ? [',', ...P] : [])];
        break;
      default: // red circle sized small near top left
        ws = [...opt(C), S, ...(Z ? ['sized', Z] : []), ...at('near')];
    }
    return tag({ kind: 'object', object: i, phrase: this.phrases++ }, ws);
  }

  // "the red circle (is) left of the blue star", for a true relation between two mentioned objects.
  private relationClause(mentioned: number[], copula: boolean): Token[] {
    const [a, b] = this.rng.shuffled(mentioned).slice(0, 2);
    const relation = this.rng.pick(
      RELATIONS.filter((r) => relationHolds(r, this.scene.objects[a].cell, this.scene.objects[b].cell)),
    );
    const ref = (i: number) => {
      const o = this.scene.objects[i];
      const C = this.mentions(P_COLOUR) ? [this.word(COLOUR_WORDS[o.colour])] : [];
      return tag({ kind: 'object', object: i, phrase: this.phrases++ }, ['the', ...C, this.word(SHAPE_WORDS[o.shape])]);
    };
    const rel = tag({ kind: 'relation', a, b, relation }, this.rng.pick(RELATION_WORDS[relation]));
    return [...ref(a), ...tag(FRAME, copula ? ['is'] : []), ...rel, ...ref(b)];
  }

  write(): Token[] {
    const n = this.scene.objects.length;
    const order = this.diverse ? this.rng.shuffled([...Array(n).keys()]) : [...Array(n).keys()];
    const mentioned = order.filter((_, k) => k === 0 || this.mentions(P_EXTRA_OBJECT));
    const objs = mentioned.map((i) => this.objectPhrase(i));
    const B = this.mentions(P_BACKGROUND)
      ? tag({ kind: 'background' }, [this.word(BACKGROUND_WORDS[this.scene.background])])
      : null;
    const rel =
      this.diverse && mentioned.length === 2 && this.id >= 3 && this.rng.chance(P_RELATION)
        ? this.relationClause(mentioned, this.id === 4)
        : null;
    const f = (...ws: string[]) => tag(FRAME, ws);
    switch (this.id) {
      case 0: // small red circle at top left and large blue star on right on grey background
        return [...joined(objs, 'and'), ...(B ? [...f('on'), ...B, ...f('background')] : [])];
      case 1: // two shapes on grey : red small circle top left , blue star
        return [
          ...tag({ kind: 'count' }, [COUNT_WORDS[n - 1]]),
          ...f(n === 1 ? 'shape' : 'shapes'),
          ...(B ? [...f('on'), ...B] : []),
          ...f(':'),
          ...joined(objs, ','),
        ];
      case 2: // small circle in red at top left ; blue star | grey
        return [...joined(objs, ';'), ...(B ? [...f('|'), ...B] : [])];
      case 3: // picture of red circle , small , top left and star against grey , with the red circle above the star
        return [
          ...f('picture', 'of'),
          ...joined(objs, 'and'),
          ...(B ? [...f('against'), ...B] : []),
          ...(rel ? [...f(',', 'with'), ...rel] : []),
        ];
      default: // grey background with red circle sized small plus star and the red circle is left of the star
        return [
          ...(B ? [...B, ...f('background', 'with')] : f('showing')),
          ...joined(objs, 'plus'),
          ...(rel ? [...f('and'), ...rel] : []),
        ];
    }
  }
}

function withNuisance(words: Token[], nuisance: Nuisance, rng: WorldRng): { tokens: Token[]; style: number | null } {
  if (nuisance.tokens === 0) return { tokens: words, style: null };
  const style = rng.int(0, STYLES.length - 1);
  const inserts = drawNuisance(words.length, style, nuisance, rng);
  const tokens: Token[] = [];
  for (let gap = 0; gap <= words.length; gap++) {
    for (const ins of inserts) if (ins.gap === gap) tokens.push({ word: ins.word, ref: { kind: 'nuisance', style } });
    if (gap < words.length) tokens.push(words[gap]);
  }
  return { tokens, style };
}

/** The captions of scene `index` of the world with this seed. Wording and nuisance draw from separate
 *  streams, so turning one knob leaves the other's draws unchanged. */
export function captionScene(scene: Scene, seed: number, index: number, knobs: CaptionKnobs): SceneCaptions {
  const order = new WorldRng(seed, 3, index);
  const annotators = order.shuffled([...Array(ANNOTATORS).keys()]);
  const evalCaption = order.int(0, ANNOTATORS - 1);
  const captions = annotators.map((a, j) => {
    const words = new Annotator(
      knobs.diversity ? a : 0,
      scene,
      new WorldRng(seed, 2, index, j),
      knobs.diversity,
    ).write();
    const { tokens, style } = withNuisance(words, knobs.nuisance, new WorldRng(seed, 4, index, j));
    return { text: tokens.map((t) => t.word).join(' '), tokens, annotator: a, style };
  });
  return { captions, evalCaption };
}
