// Rasterises a scene into an anti-aliased PNG with image nuisance (position, size, rotation, brightness,
// pixel noise). Colours and shapes are drawn as themselves so the image carries every marginal concept
// (what a frozen image encoder must pick up), independent of the caption's nuisance.
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas';
import { skia } from '../../skia';
import { BACKGROUNDS, COLOURS, SHAPES, SIZES, type Background, type Colour, type Shape, type Size } from './lexicon';
import { WorldRng } from './rng';
import type { Scene, SceneObject } from './scene';

type RGB = readonly [number, number, number];
const COLOUR_RGB: Record<Colour, RGB> = {
  red: [220, 30, 30],
  orange: [245, 135, 0],
  yellow: [245, 220, 20],
  green: [30, 165, 50],
  cyan: [0, 205, 215],
  blue: [35, 75, 225],
  purple: [135, 50, 190],
  pink: [250, 125, 195],
};
const BACKGROUND_RGB: Record<Background, RGB> = {
  white: [245, 245, 245],
  black: [25, 25, 25],
  grey: [128, 128, 128],
  sand: [215, 190, 140],
  sky: [165, 200, 240],
  wood: [115, 78, 45],
};
// Object radius as a fraction of a grid cell's side.
const SIZE_RADIUS: Record<Size, number> = { small: 0.24, medium: 0.33, large: 0.44 };

// Image nuisance; each draw is independent per object (position, scale, rotation) or per image (brightness, noise).
export const IMAGE_NUISANCE = {
  shift: 0.1, // max centre offset, fraction of a cell
  scale: 0.08, // max relative radius change
  rotation: (15 * Math.PI) / 180, // max |angle|, radians (small: a rotated square must not become a diamond)
  brightness: 0.12, // max relative brightness change
  noise: 6, // pixel noise std, in 0..255 units
};

function tracePath(ctx: SKRSContext2D, shape: Shape, r: number): void {
  const poly = (pts: [number, number][]) => {
    ctx.moveTo(pts[0][0], pts[0][1]);
    for (const [x, y] of pts.slice(1)) ctx.lineTo(x, y);
    ctx.closePath();
  };
  const ring = (n: number, radius: (k: number) => number, phase: number) =>
    poly(
      [...Array(n).keys()].map((k) => {
        const a = phase + (2 * Math.PI * k) / n;
        return [radius(k) * Math.cos(a), radius(k) * Math.sin(a)];
      }),
    );
  switch (shape) {
    case 'circle':
      ctx.arc(0, 0, 0.92 * r, 0, 2 * Math.PI);
      break;
    case 'square':
      ctx.rect(-0.8 * r, -0.8 * r, 1.6 * r, 1.6 * r);
      break;
    case 'triangle':
      ring(3, () => r, -Math.PI / 2);
      break;
    case 'diamond':
      poly([
        [0, -r],
        [0.62 * r, 0],
        [0, r],
        [-0.62 * r, 0],
      ]);
      break;
    case 'star':
      ring(10, (k) => (k % 2 ? 0.45 * r : r), -Math.PI / 2);
      break;
    case 'hexagon':
      ring(6, () => 0.95 * r, 0);
      break;
    case 'cross': {
      // a saltire (x): a plus sign turned 45 degrees
      const a = 0.28 * r,
        e = 0.95 * r;
      const plus: [number, number][] = [
        [-a, -e],
        [a, -e],
        [a, -a],
        [e, -a],
        [e, a],
        [a, a],
        [a, e],
        [-a, e],
        [-a, a],
        [-e, a],
        [-e, -a],
        [-a, -a],
      ];
      const c = Math.SQRT1_2;
      poly(plus.map(([x, y]) => [c * (x - y), c * (x + y)]));
      break;
    }
    case 'heart':
      ctx.moveTo(0, -0.45 * r);
      ctx.bezierCurveTo(0, -0.85 * r, -r, -0.95 * r, -r, -0.3 * r);
      ctx.bezierCurveTo(-r, 0.2 * r, -0.35 * r, 0.55 * r, 0, 0.95 * r);
      ctx.bezierCurveTo(0.35 * r, 0.55 * r, r, 0.2 * r, r, -0.3 * r);
      ctx.bezierCurveTo(r, -0.95 * r, 0, -0.85 * r, 0, -0.45 * r);
      ctx.closePath();
  }
}

const css = ([r, g, b]: RGB, k: number) =>
  `rgb(${Math.min(255, Math.round(r * k))},${Math.min(255, Math.round(g * k))},${Math.min(255, Math.round(b * k))})`;

// One canvas per image size, reused: creating a canvas costs more than drawing on it.
const canvases = new Map<number, Canvas>();

/** Scene `index` of the world with this seed as a `size` x `size` PNG (the dataset's image: its view 0). */
export const renderScene = (scene: Scene, size: number, seed: number, index: number): Buffer =>
  renderSceneView(scene, size, seed, index, 0);

// The world's video: view v of a scene is another rendering of the same state (same objects, cells, sizes,
// colours, background) with its own nuisance draws (position within the cell, radius, rotation, brightness, pixel
// noise) and, for v > 0, its own drawing order. View 0 keeps the dataset's stream (seed, 5, index) and the
// canonical order, so it is the dataset's PNG to the byte; view v > 0 draws from the stream (seed, 5, index, v).
const viewRng = (seed: number, index: number, view: number) =>
  view === 0 ? new WorldRng(seed, 5, index) : new WorldRng(seed, 5, index, view);

/** View `view` of scene `index` as a `size` x `size` PNG. */
export function renderSceneView(scene: Scene, size: number, seed: number, index: number, view: number): Buffer {
  draw(scene, size, viewRng(seed, index, view), view > 0);
  return canvases.get(size)!.encodeSync('png');
}

/** View `view` of scene `index` as RGBA bytes, [size, size, 4] row-major: the PNG's pixels without the encoding. */
export function renderScenePixels(
  scene: Scene,
  size: number,
  seed: number,
  index: number,
  view: number,
): Uint8ClampedArray {
  return draw(scene, size, viewRng(seed, index, view), view > 0);
}

// An object's place in one render: centre (x, y) and radius r in px, rotation in radians.
type Placed = { o: SceneObject; x: number; y: number; r: number; angle: number };

// Draws the scene on the size's canvas and returns its pixels (RGBA, after the pixel noise). The draws are taken in
// the order light, then per object shift x, shift y, scale, rotation, then noise: the order the dataset's PNGs keep.
function draw(scene: Scene, size: number, rng: WorldRng, shuffle: boolean): Uint8ClampedArray {
  const cell = size / 3;
  const objects = shuffle ? rng.shuffled(scene.objects) : scene.objects;
  const light = 1 + rng.between(-IMAGE_NUISANCE.brightness, IMAGE_NUISANCE.brightness);
  const placed = objects.map((o): Placed => {
    const [row, col] = [Math.floor(o.cell / 3), o.cell % 3];
    const x = (col + 0.5 + rng.between(-IMAGE_NUISANCE.shift, IMAGE_NUISANCE.shift)) * cell;
    const y = (row + 0.5 + rng.between(-IMAGE_NUISANCE.shift, IMAGE_NUISANCE.shift)) * cell;
    const r = SIZE_RADIUS[o.size] * cell * (1 + rng.between(-IMAGE_NUISANCE.scale, IMAGE_NUISANCE.scale));
    return { o, x, y, r, angle: rng.between(-IMAGE_NUISANCE.rotation, IMAGE_NUISANCE.rotation) };
  });
  return paint(size, scene.background, light, placed, rng);
}

// What an object's renders keep: the object (its shape, colour and size class, on its scene's background), its shape
// only (colour, size class and background drawn afresh for each render, so that shape is all its views share), its
// shape and colour (size class and background drawn afresh), or its shape, colour and size class (background afresh).
export const OBJECT_KEEPS = ['object', 'shape', 'shape-colour', 'shape-colour-size'] as const;
export type ObjectKeep = (typeof OBJECT_KEEPS)[number];

// What each keep keeps of an object: the attributes its renders share (the rest is drawn afresh per render).
const KEPT = {
  object: ['shape', 'colour', 'size', 'background'],
  shape: ['shape'],
  'shape-colour': ['shape', 'colour'],
  'shape-colour-size': ['shape', 'colour', 'size'],
} as const satisfies Record<ObjectKeep, readonly string[]>;
const LEXICON = { shape: SHAPES, colour: COLOURS, size: SIZES, background: BACKGROUNDS };

/** What the renders of an object under `keep` share, as a key: two objects of one key have renders from one
 *  distribution, so an InfoNCE batch that holds both has a negative no encoder can tell from the positive. */
export function objectKind(scene: Scene, object: number, keep: ObjectKeep): string {
  const o = { ...scene.objects[object], background: scene.background };
  return KEPT[keep].map((a) => o[a]).join(':');
}

/** How many kinds (objectKind) a keep has in the world's lexicon: the most objects of distinct kinds a batch can hold. */
export const objectKindCount = (keep: ObjectKeep): number => KEPT[keep].reduce((n, a) => n * LEXICON[a].length, 1);

/** Object `object` of scene `index` drawn alone, render `view`, as RGBA bytes [size, size, 4]: anywhere in the image
 *  (centre uniform, the object kept inside; not bound to its cell) with the renderer's scale, rotation, brightness and
 *  noise nuisance; `keep` says what stays the same across renders. The image JEPA's object-level good views: renders
 *  of one object's state. Streams (seed, 6, index, object, view); every keep but 'object' draws a colour, size class
 *  and background from (seed, 7, index, object, view) first ('shape-colour' then keeps the object's colour,
 *  'shape-colour-size' its colour and size class, so all three redraw the same background). */
export type ObjectRender = {
  size: number;
  seed: number;
  index: number;
  object: number;
  view: number;
  keep?: ObjectKeep;
};
export function renderObjectPixels(
  scene: Scene,
  { size, seed, index, object, view, keep = 'object' }: ObjectRender,
): Uint8ClampedArray {
  const own = scene.objects[object];
  if (!own) throw new Error(`scene ${index} has ${scene.objects.length} objects, not object ${object}`);
  const rd = keep === 'object' ? null : new WorldRng(seed, 7, index, object, view);
  const drawn = rd && { colour: rd.pick(COLOURS), size: rd.pick(SIZES), background: rd.pick(BACKGROUNDS) }; // in this order
  const o = drawn
    ? {
        ...own,
        colour: keep === 'shape' ? drawn.colour : own.colour,
        size: keep === 'shape-colour-size' ? own.size : drawn.size,
      }
    : own;
  const background = drawn?.background ?? scene.background;
  const rng = new WorldRng(seed, 6, index, object, view);
  const light = 1 + rng.between(-IMAGE_NUISANCE.brightness, IMAGE_NUISANCE.brightness);
  const r = SIZE_RADIUS[o.size] * (size / 3) * (1 + rng.between(-IMAGE_NUISANCE.scale, IMAGE_NUISANCE.scale));
  const [x, y] = [rng.between(r + 1, size - r - 1), rng.between(r + 1, size - r - 1)];
  return paint(
    size,
    background,
    light,
    [{ o, x, y, r, angle: rng.between(-IMAGE_NUISANCE.rotation, IMAGE_NUISANCE.rotation) }],
    rng,
  );
}

// Fills the background, draws the placed objects in order, adds pixel noise from rng; RGBA bytes of the size's canvas.
function paint(
  size: number,
  background: Background,
  light: number,
  placed: readonly Placed[],
  rng: WorldRng,
): Uint8ClampedArray {
  let canvas = canvases.get(size);
  if (!canvas) canvases.set(size, (canvas = skia().createCanvas(size, size)));
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = css(BACKGROUND_RGB[background], light);
  ctx.fillRect(0, 0, size, size);
  for (const { o, x, y, r, angle } of placed) {
    ctx.setTransform(1, 0, 0, 1, x, y);
    ctx.rotate(angle);
    ctx.beginPath();
    tracePath(ctx, o.shape, r);
    ctx.fillStyle = css(COLOUR_RGB[o.colour], light);
    ctx.fill();
    // A darker rim keeps light objects visible on light backgrounds.
    ctx.strokeStyle = css(COLOUR_RGB[o.colour], 0.55 * light);
    ctx.lineWidth = Math.max(1, 0.08 * r);
    ctx.stroke();
  }
  const img = ctx.getImageData(0, 0, size, size); // data: [size, size, 4] RGBA bytes
  const d = img.data;
  for (let i = 0; i < d.length; i += 4) {
    d[i] += IMAGE_NUISANCE.noise * rng.normal(); // Uint8ClampedArray rounds and clamps
    d[i + 1] += IMAGE_NUISANCE.noise * rng.normal();
    d[i + 2] += IMAGE_NUISANCE.noise * rng.normal();
  }
  ctx.putImageData(img, 0, 0);
  return d;
}
