// The world's concepts and the words annotators may use for them. Every content word names exactly one
// value (no word is shared between values or with function words), so a caption can be read back.
export const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'star', 'cross', 'hexagon', 'heart'] as const;
export const COLOURS = ['red', 'orange', 'yellow', 'green', 'cyan', 'blue', 'purple', 'pink'] as const;
export const SIZES = ['small', 'medium', 'large'] as const;
export const BACKGROUNDS = ['white', 'black', 'grey', 'sand', 'sky', 'wood'] as const;

export type Shape = (typeof SHAPES)[number];
export type Colour = (typeof COLOURS)[number];
export type Size = (typeof SIZES)[number];
export type Background = (typeof BACKGROUNDS)[number];

// First synonym = the canonical word used when annotator diversity is off.
export const SHAPE_WORDS: Record<Shape, readonly string[]> = {
  circle: ['circle', 'disc', 'dot'],
  square: ['square', 'box', 'block'],
  triangle: ['triangle', 'wedge'],
  diamond: ['diamond', 'rhombus', 'lozenge'],
  star: ['star'],
  cross: ['cross', 'x'],
  hexagon: ['hexagon', 'hex'],
  heart: ['heart'],
};
export const COLOUR_WORDS: Record<Colour, readonly string[]> = {
  red: ['red', 'scarlet', 'crimson'],
  orange: ['orange', 'amber'],
  yellow: ['yellow', 'golden', 'lemon'],
  green: ['green', 'emerald', 'lime'],
  cyan: ['cyan', 'turquoise', 'teal'],
  blue: ['blue', 'cobalt'],
  purple: ['purple', 'violet', 'lilac'],
  pink: ['pink', 'rose', 'magenta'],
};
export const SIZE_WORDS: Record<Size, readonly string[]> = {
  small: ['small', 'tiny', 'little'],
  medium: ['medium', 'moderate'],
  large: ['large', 'big', 'huge'],
};
export const BACKGROUND_WORDS: Record<Background, readonly string[]> = {
  white: ['white', 'snowy'],
  black: ['black', 'dark'],
  grey: ['grey', 'gray'],
  sand: ['sand', 'beige', 'tan'],
  sky: ['sky', 'azure'],
  wood: ['wood', 'wooden', 'brown'],
};

// Cells are row-major on a 3x3 grid: row = floor(cell / 3) (0 = top), col = cell % 3 (0 = left).
// A position phrase names a row word and/or a column word; the centre cell has its own words.
export const ROW_WORDS: readonly (readonly string[])[] = [['top', 'upper'], [], ['bottom', 'lower']];
export const COL_WORDS: readonly (readonly string[])[] = [['left'], [], ['right']];
export const CENTRE_WORDS: readonly string[] = ['centre', 'center', 'middle'];
export const COUNT_WORDS: readonly string[] = ['one', 'two', 'three'];

// Relations between two objects that follow from their cells.
export const RELATIONS = ['left of', 'right of', 'above', 'below'] as const;
export type Relation = (typeof RELATIONS)[number];
export const RELATION_WORDS: Record<Relation, readonly (readonly string[])[]> = {
  'left of': [
    ['left', 'of'],
    ['to', 'the', 'left', 'of'],
  ],
  'right of': [
    ['right', 'of'],
    ['to', 'the', 'right', 'of'],
  ],
  above: [['above'], ['over']],
  below: [['below'], ['under'], ['beneath']],
};

export const relationHolds = (rel: Relation, a: number, b: number): boolean => {
  const [ra, ca, rb, cb] = [Math.floor(a / 3), a % 3, Math.floor(b / 3), b % 3];
  if (rel === 'left of') return ca < cb;
  if (rel === 'right of') return ca > cb;
  if (rel === 'above') return ra < rb;
  return ra > rb;
};

export type Concept =
  | { kind: 'shape'; value: Shape }
  | { kind: 'colour'; value: Colour }
  | { kind: 'size'; value: Size }
  | { kind: 'background'; value: Background }
  | { kind: 'row'; value: 0 | 2 }
  | { kind: 'col'; value: 0 | 2 }
  | { kind: 'centre' }
  | { kind: 'count'; value: 1 | 2 | 3 };

// word -> the one concept it names; built once, and checked to be unambiguous at load.
export const CONTENT_WORDS: ReadonlyMap<string, Concept> = (() => {
  const m = new Map<string, Concept>();
  const add = (w: string, c: Concept) => {
    if (m.has(w)) throw new Error(`lexicon: "${w}" names two concepts`);
    m.set(w, c);
  };
  for (const s of SHAPES) for (const w of SHAPE_WORDS[s]) add(w, { kind: 'shape', value: s });
  for (const c of COLOURS) for (const w of COLOUR_WORDS[c]) add(w, { kind: 'colour', value: c });
  for (const z of SIZES) for (const w of SIZE_WORDS[z]) add(w, { kind: 'size', value: z });
  for (const b of BACKGROUNDS) for (const w of BACKGROUND_WORDS[b]) add(w, { kind: 'background', value: b });
  for (const r of [0, 2] as const) for (const w of ROW_WORDS[r]) add(w, { kind: 'row', value: r });
  for (const c of [0, 2] as const) for (const w of COL_WORDS[c]) add(w, { kind: 'col', value: c });
  for (const w of CENTRE_WORDS) add(w, { kind: 'centre' });
  COUNT_WORDS.forEach((w, i) => add(w, { kind: 'count', value: (i + 1) as 1 | 2 | 3 }));
  return m;
})();
