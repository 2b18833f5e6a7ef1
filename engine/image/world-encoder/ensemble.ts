// Ensembles of world-encoder ViTs: built member by member in processes of their own, joined from models built
// elsewhere, or read out again (a new pooler) without training; and the one entry that builds any recipe.
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { callChild, entryCommand } from '../../child';
import { InputError } from '../../errors';
import { mean } from '../../metrics';
import { vitOnnxConfig, type ViTShape } from '../../models';
import { buildVitOnnx, decodeModel, vitWeightShapes, type VitConfigInput, type VitWeights } from '../../models/onnx';
import { sha256 } from '../encoder';
import { describePooler, type PoolerRecipe } from '../whitened-pooler';
import { BuildCheckpoints, buildVit, type BuildHooks } from './build';
import { built, vitSha256, WorldEncoderManifest, type BuiltEncoder } from './manifest';
import { withHeadOn } from './readout';
import {
  memberName,
  memberOf,
  memberRecipe,
  WORLD_ENCODER_RECIPE,
  WorldEncoderRecipe,
  type MemberSpec,
} from './recipe';
import { firstSceneImages } from './renders';

/** The world encoder of `recipe`: one ViT built in this process, or an ensemble (`members`) built member by member.
 *  With checkpoints a killed build started again goes on from its newest checkpoint, to the same bytes. */
export const buildWorldEncoder = (
  recipe: WorldEncoderRecipe = WORLD_ENCODER_RECIPE,
  hooks: BuildHooks = {},
  checkpoints?: BuildCheckpoints,
): Promise<BuiltEncoder> =>
  recipe.members ? buildEnsemble(recipe, hooks, checkpoints) : buildVit(recipe, hooks, checkpoints);

// The weights of each of the `members` ViTs in a model buildVitOnnx wrote: its initializers, by the names it gave them
// (float32 raw data).
function onnxVitWeights(bytes: Uint8Array, cfg: VitConfigInput, source: string, members = 1): VitWeights[] {
  const inits = new Map((decodeModel(bytes, source).graph!.initializer ?? []).map((t) => [t.name ?? '', t]));
  return Array.from({ length: members }, (_, k) =>
    Object.fromEntries(
      Object.keys(vitWeightShapes(cfg)).map((name) => {
        const full = members > 1 ? `member${k}.${name}` : name; // buildVitOnnx's names
        const raw = inits.get(full)?.rawData;
        if (!raw)
          throw new InputError(
            `${source}: no weight ${full}; not a world encoder this workbench built (with ${members} member${members > 1 ? 's' : ''})`,
          );
        return [name, new Float32Array(Uint8Array.from(raw).buffer)]; // a copy: raw may be a view into a larger buffer
      }),
    ),
  );
}

// what a member's process is given (its checkpoints: a folder of the ensemble's, member-<memberName>) and gives back
export const MemberInput = z.object({ recipe: WorldEncoderRecipe, checkpoints: BuildCheckpoints.optional() });
export type MemberInput = z.infer<typeof MemberInput>;
const MemberBuild = z.object({ bytes: z.string(), manifest: WorldEncoderManifest.omit({ file: true, probe: true }) }); // bytes: base64

// An ensemble world encoder: each member built as the one-ViT recipe at its seed, each in a process of its own (tfjs's
// wasm backend trains on one thread, so members train side by side only as processes), then joined. Members of one
// length all at once (three on two cores take 1.5x one member's time, where two at a time would take 2x); of different
// lengths, longest first and one per core, so the long one has a core to itself (3 x 2,000 + 6,000 steps on two cores:
// 6,000 steps' time, where all at once would take 8,000's). A member that fails stops the others. Its bytes are the
// in-process build's (same code, one wasm thread each).
async function buildEnsemble(
  recipe: WorldEncoderRecipe,
  hooks: BuildHooks,
  checkpoints?: BuildCheckpoints,
): Promise<BuiltEncoder> {
  const t0 = performance.now(),
    load0 = loadavg();
  const log = hooks.log ?? (() => {});
  const specs = recipe.members!,
    lengths = specs.map((m) => memberOf(recipe, m).steps);
  const slots = new Set(lengths).size === 1 ? specs.length : cpus().length;
  const describe = specs
    .map((m, k) => `${memberOf(recipe, m).seed}${lengths[k] === recipe.jepa.steps ? '' : ` (${lengths[k]} steps)`}`)
    .join(', ');
  log(
    `an ensemble of ${specs.length} ViTs (jepa seeds ${describe}), each training in its own process, ${Math.min(slots, specs.length)} at a time, on ${cpus().length} cores`,
  );
  const cmd = entryCommand(import.meta.url, 'member.ts', 'encoder-member.js');
  const stop = new AbortController();
  const buildOne = async (m: MemberSpec) => {
    const name = memberName(recipe, m);
    try {
      const input: MemberInput = {
        recipe: memberRecipe(recipe, m),
        ...(checkpoints && { checkpoints: { ...checkpoints, dir: join(checkpoints.dir, `member-${name}`) } }),
      };
      const b = MemberBuild.parse(
        await callChild(cmd, input, `world-encoder member ${name}`, {
          onLine: (line) => log(`member ${name}: ${line}`),
          signal: stop.signal,
        }),
      );
      return { bytes: Buffer.from(b.bytes, 'base64'), manifest: b.manifest, source: `world-encoder member ${name}` };
    } catch (err) {
      stop.abort();
      throw err;
    }
  };
  // `slots` workers, each taking the longest member left (a few lines: the order is the point); none starts after a failure
  const order = specs.map((_, k) => k).sort((a, b) => lengths[b] - lengths[a]);
  const builds: Awaited<ReturnType<typeof buildOne>>[] = [];
  await Promise.all(
    Array.from({ length: Math.min(slots, specs.length) }, async () => {
      for (let k = order.shift(); k !== undefined && !stop.signal.aborted; k = order.shift())
        builds[k] = await buildOne(specs[k]);
    }),
  );
  const joined = await joinMembers(recipe, builds.flatMap(membersOf), log);
  const m0 = builds[0].manifest;
  return {
    ...joined,
    manifest: {
      ...joined.manifest,
      backend: `${m0.backend} per member, ${specs.length} processes`,
      build: {
        seconds: (performance.now() - t0) / 1000,
        secondsPerStep: joined.manifest.build.secondsPerStep,
        loadavg: [load0[0], loadavg()[0]],
        cpus: cpus().length,
        node: process.version,
        at: new Date().toISOString(),
      },
    },
  };
}

type ModelFile = { bytes: Uint8Array; manifest: Omit<WorldEncoderManifest, 'file' | 'probe'>; source: string };
// One trained ViT as a join takes it: its weights, its build's record (the manifest's `members` row) and the model it
// came from (whose onnx, tfjs, backend and parity the join keeps).
type Member = {
  weights: VitWeights;
  record: NonNullable<WorldEncoderManifest['members']>[number];
  spec: { seed: number; steps: number };
  from: ModelFile;
};

// The ViTs of a built model: a one-ViT build's one, or each member of an ensemble with its recorded build.
function membersOf(b: ModelFile): Member[] {
  const m = b.manifest,
    cfg = vitOnnxConfig(m.recipe.jepa.vit as ViTShape);
  if (!m.recipe.members) {
    const record = {
      seed: m.recipe.jepa.seed,
      sha256: vitSha256(m),
      loss: { first: m.loss.first, last: m.loss.last, curve: m.loss.curve },
      seconds: m.build.seconds,
      secondsPerStep: m.build.secondsPerStep,
    };
    return [
      {
        weights: onnxVitWeights(b.bytes, cfg, b.source)[0],
        record,
        spec: { seed: m.recipe.jepa.seed, steps: m.recipe.jepa.steps },
        from: b,
      },
    ];
  }
  const specs = m.recipe.members;
  if (m.members?.length !== specs.length)
    throw new InputError(`${b.source}: an ensemble of ${specs.length} without a build record for each member`);
  return onnxVitWeights(b.bytes, cfg, b.source, specs.length).map((weights, k) => ({
    weights,
    record: m.members![k],
    spec: memberOf(m.recipe, specs[k]),
    from: b,
  }));
}

// Members' ViTs (weights read back from their graphs) in one graph, and `recipe.pooler` fitted on their joint tokens.
// build: this join's own time (the members' are in `members`).
async function joinMembers(
  recipe: WorldEncoderRecipe,
  members: readonly Member[],
  log: (t: string) => void,
): Promise<BuiltEncoder> {
  const t0 = performance.now();
  const pooler = recipe.pooler!;
  const shape = recipe.jepa.vit as ViTShape,
    cfg = vitOnnxConfig(shape);
  for (const { weights, record, from } of members) {
    const own = sha256(buildVitOnnx(cfg, weights));
    if (own !== record.sha256)
      throw new InputError(
        `${from.source}: its ViT${from.manifest.recipe.members ? ` of seed ${record.seed}` : ''} rebuilds to sha256 ${own.slice(0, 16)}…, not its manifest's ${record.sha256.slice(0, 16)}…`,
      );
  }
  const weights = members.map((m) => m.weights);
  const base = buildVitOnnx(cfg, weights);
  const { bytes, eigenvalues, parity } = await withHeadOn(base, shape, weights, firstSceneImages(recipe.world), pooler);
  log(
    `pooler: ${describePooler(pooler)} over ${members.length} members' tokens, fitted in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const m0 = members[0].from.manifest;
  const load = loadavg()[0];
  return built(bytes, {
    recipe,
    onnx: m0.onnx,
    tfjs: m0.tfjs,
    backend: m0.backend,
    loss: m0.loss,
    parity: {
      images: m0.parity.images,
      maxAbsDiffPooler: parity,
      maxAbsDiffTokens: Math.max(...members.map((m) => m.from.manifest.parity.maxAbsDiffTokens)),
    },
    pooler: {
      baseSha256: sha256(base),
      eigenvalues: [eigenvalues[0], eigenvalues[eigenvalues.length - 1]],
      seconds: (performance.now() - t0) / 1000,
    },
    build: {
      seconds: (performance.now() - t0) / 1000,
      secondsPerStep: mean(members.map((m) => m.record.secondsPerStep)),
      loadavg: [load, load],
      cpus: cpus().length,
      node: process.version,
      at: new Date().toISOString(),
    },
    members: members.map((m) => m.record),
  });
}

/** An ensemble from world encoders already built (of one recipe at distinct jepa seeds: one-ViT builds made on other
 *  machines or as Slurm jobs, or ensembles, whose members join as they are, so an ensemble grows without training its
 *  members again), with `pooler` (default: the first's) fitted on their joint tokens: the bytes a build of the recipe
 *  with all those `members` gives, without training. Refused unless each ViT rebuilds to its manifest's record. */
export async function joinWorldEncoders(
  models: readonly { bytes: Uint8Array; manifest: WorldEncoderManifest; source: string }[],
  pooler?: PoolerRecipe,
  log: (t: string) => void = () => {},
): Promise<BuiltEncoder> {
  const r0 = models[0]?.manifest.recipe;
  // the recipe with seed and length taken out (memberRecipe stretches an object term trained alone throughout with them)
  const shared = (r: WorldEncoderRecipe) => JSON.stringify(memberRecipe(r, { seed: 0, steps: 1 }));
  const odd = models.find((b) => shared(b.manifest.recipe) !== shared(r0));
  if (odd)
    throw new InputError(
      `${odd.source}: its recipe differs from ${models[0].source}'s in more than jepa.seed and steps; an ensemble's members share one recipe`,
    );
  const members = models.flatMap(membersOf);
  if (members.length < 2)
    throw new InputError(`join: ${members.length} ViT${members.length === 1 ? '' : 's'}; an ensemble needs at least 2`);
  // each member as r0's members name it: its seed, with its steps where they are not r0's
  const specs = members.map(({ spec }): MemberSpec => (spec.steps === r0.jepa.steps ? spec.seed : spec));
  const names = specs.map((m) => memberName(r0, m));
  const twice = specs.find((_, i) => names.indexOf(names[i]) !== i);
  if (twice !== undefined)
    throw new InputError(
      `join: two ViTs of jepa seed ${typeof twice === 'number' ? twice : `${twice.seed} at ${twice.steps} steps`}; an ensemble's members are distinct draws`,
    );
  const read = pooler ?? r0.pooler;
  if (!read)
    throw new InputError(`join: ${models[0].source} has no read-out to fit over the members; give a pooler recipe`);
  const joined = await joinMembers(WorldEncoderRecipe.parse({ ...r0, pooler: read, members: specs }), members, log);
  return {
    ...joined,
    manifest: {
      ...joined.manifest,
      joined: { from: models.map((b) => b.manifest.sha256), at: new Date().toISOString() },
    },
  };
}

/** A new read-out `pooler` for a built world encoder, without training it again: the ViT's weights are read back from
 *  the ONNX file and rebuilt into the CLS-pooler graph, which must hash to the manifest's `pooler.baseSha256` (then the
 *  weights are the trained ones to the bit), and the head is fitted as the build fits it. So the bytes are those a
 *  full build of the recipe with this pooler gives (`--check` rebuilds them), in seconds instead of an hour. */
export async function repoolWorldEncoder(
  bytes: Uint8Array,
  manifest: WorldEncoderManifest,
  pooler: PoolerRecipe,
  source: string,
): Promise<BuiltEncoder> {
  const t0 = performance.now();
  const shape = manifest.recipe.jepa.vit as ViTShape,
    cfg = vitOnnxConfig(shape);
  const weights = onnxVitWeights(bytes, cfg, source, manifest.recipe.members?.length);
  const base = buildVitOnnx(cfg, weights);
  const want = vitSha256(manifest);
  if (sha256(base) !== want)
    throw new InputError(
      `${source}: its ViT rebuilds to sha256 ${sha256(base).slice(0, 16)}…, not the manifest's base ${want.slice(0, 16)}…`,
    );
  const {
    bytes: out,
    eigenvalues,
    parity,
  } = await withHeadOn(base, shape, weights, firstSceneImages(manifest.recipe.world), pooler);
  const { file: _file, probe: _probe, sha256: _sha256, bytes: _bytes, ...rest } = manifest;
  return built(out, {
    ...rest,
    recipe: { ...manifest.recipe, pooler },
    parity: { ...manifest.parity, maxAbsDiffPooler: parity },
    pooler: {
      baseSha256: want,
      eigenvalues: [eigenvalues[0], eigenvalues[eigenvalues.length - 1]],
      seconds: (performance.now() - t0) / 1000,
    },
    repooled: { from: manifest.sha256, at: new Date().toISOString() },
  });
}
