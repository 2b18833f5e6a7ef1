// A world encoder's probes: linear probes of each scene attribute and the image-side ceiling on the experiments'
// default world, beside raw pixels and the same ViT(s) at their random init.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type { Dataset } from '../../../shared/dataset';
import { generateWorld, readDataset } from '../../data';
import type { Embeddings } from '../../embeddings';
import { InputError } from '../../errors';
import { exportVitOnnx, type ViTShape } from '../../models';
import { calibrateStemOn, initBackend, initImageVit } from '../../train';
import { type ProbeResult, pixelFeatures, probeAttributes } from '../attribute-probe';
import { embedImages } from '../embed';
import { openImageEncoder } from '../encoder';
import type { WorldEncoderManifest } from './manifest';
import { fitVitPooler } from './readout';
import { memberRecipe, type WorldEncoderRecipe } from './recipe';
import { worldImages } from './renders';

export type ProbeTable = NonNullable<WorldEncoderManifest['probe']>;

// The experiments' default world (seed 0, 5,000 / 1,014 / 1,000): the probes' and the ceiling's held-out scenes, so the
// ceiling recorded here is the one `prh demo` reports. The encoder trains on another seed (recipe.world.seed).
const PROBE_WORLD = { seed: 0, splits: { train: 5000, val: 1014, test: 1000 } } as const;

// Scores the image side of a world dataset: the ceiling, given by the caller (engine/experiment owns it).
export type CeilingOf = (
  dataset: Dataset,
  emb: Embeddings,
  ids: string[],
) => Promise<{ r1: number; mknn: number | null; dim: number } | null>;

// Linear probes (and, given `ceiling`, the image-side ceiling) on a held-out world (generated into a temp folder unless
// `worldDir` holds one): the encoder through the dinov2 image path, next to raw 16-px pixels and the same ViT at its
// random init (also through ONNX).
export async function probeWorldEncoder(
  onnxPath: string,
  recipe: WorldEncoderRecipe,
  worldDir?: string,
  log: (t: string) => void = () => {},
  ceiling?: CeilingOf,
): Promise<ProbeTable> {
  await initBackend('wasm', { matmul: 'wasm' }); // the random-init ViT is built with tfjs, as the build's own
  const tmp = mkdtempSync(join(tmpdir(), 'prh-world-probe-'));
  try {
    const world = { ...PROBE_WORLD, imageSize: recipe.world.imageSize };
    const dir = worldDir ?? join(tmp, 'world');
    if (!worldDir) generateWorld(dir, world);
    const ds = readDataset(dir);
    const refs = ds.images.flatMap((im) => (im.file ? [{ id: im.id, file: join(dir, 'images', im.file) }] : []));
    if (!refs.length) throw new InputError(`${dir}: no images to probe`);
    const embed = async (path: string) => {
      const side = recipe.world.imageSize; // the whole render, as it trained (engine/experiment/images.ts feeds it so)
      const enc = await openImageEncoder(path, { preset: 'dinov2', overrides: { size: side, resize: side } });
      try {
        return await embedImages(enc, refs, { batchSize: 64 });
      } finally {
        await enc.release();
      }
    };
    const trained = await embed(onnxPath);
    log(`probe: embedded ${trained.ids.length} held-out scenes`);
    const shape = recipe.jepa.vit as ViTShape;
    const randomPath = join(tmp, 'random-init.onnx');
    // an ensemble's members each at their random init
    const rnd = (recipe.members ?? [recipe.jepa.seed]).map((m) => initImageVit(memberRecipe(recipe, m).jepa));
    // the random-init ViT gets its own pooler (and stem statistics), fitted the same way: the comparison is of the trained weights
    const seen =
      recipe.pooler || shape.stem
        ? worldImages(recipe.world.seed, recipe.pooler?.scenes ?? 1000, recipe.world.imageSize)
        : null;
    if (shape.stem && seen) for (const p of rnd) await calibrateStemOn(shape.stem, p, seen);
    const params = recipe.members ? rnd : rnd[0];
    const own = recipe.pooler && seen ? (await fitVitPooler(shape, params, seen, recipe.pooler)).head : undefined;
    writeFileSync(randomPath, await exportVitOnnx(shape, params, own));
    tf.dispose(rnd.flatMap((p) => [...p.values()]));
    const random = await embed(randomPath);
    const pixels = await pixelFeatures(refs.map((r) => r.file));
    const pixelIds = refs.map((r) => r.id);
    const rows = (r: ProbeResult[]) => r.map((x) => ({ ...x }));
    const ceilings =
      ceiling && (await Promise.all([ceiling(ds, trained.emb, trained.ids), ceiling(ds, random.emb, random.ids)]));
    return {
      ...(ceilings?.[0] && ceilings[1] ? { ceiling: { trained: ceilings[0], randomInit: ceilings[1] } } : {}),
      world: worldDir ? { dir: worldDir } : world,
      trained: rows(await probeAttributes(trained.emb, trained.ids, ds.images)),
      pixels: rows(await probeAttributes(pixels, pixelIds, ds.images)),
      randomInit: rows(await probeAttributes(random.emb, random.ids, ds.images)),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
