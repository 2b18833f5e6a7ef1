// `prh world build-encoder`: rebuild the procedural world's frozen image encoder (engine/image/world-encoder/)
// into resources/world-encoder.onnx + .json, or with --check rebuild it and compare its hash with the shipped one;
// --probe-only and --repool work on a built model (probes; a new read-out) and --join on several (an ensemble), without
// training.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { z } from 'zod';
import { writeFileAtomic, writeJsonAtomic } from '../atomic';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { PRESETS } from '../models/presets';
import type { BuiltEncoder, CeilingOf, WorldEncoderManifest } from '../image';
import { parseFlags, printTable } from './output';

const Flags = z.object({
  out: z.string().regex(/\.onnx$/, 'expected a path ending in .onnx'),
  check: z.boolean().optional(),
  probeOnly: z.boolean().optional(),
  repool: z.string().optional(),
  join: z.array(z.string().regex(/\.onnx$/, 'expected models ending in .onnx')).optional(),
  recipe: z.string().optional(),
  probe: z.boolean(), // commander's --no-probe
  probeWorld: z.string().optional(),
  checkpoints: z.union([z.string().min(1), z.literal(false)]).optional(), // a folder, --no-checkpoints (false), or the default beside --out
  checkpointEvery: z.coerce.number().int().positive(),
  json: z.boolean().optional(),
});

// The ceiling's oracle text width: the demo's text side (the cpu preset).
const CEILING_DIM = PRESETS.cpu.d;
const manifestPath = (onnx: string) => join(dirname(onnx), `${basename(onnx, '.onnx')}.json`);
// A build's step checkpoints by default: beside its model (x.onnx: x.checkpoints/), removed once the model is written.
const checkpointsPath = (onnx: string) => join(dirname(onnx), `${basename(onnx, '.onnx')}.checkpoints`);
// ~8 min of the shipped recipe on one core (1.9 s/step): what a kill can cost
const CHECKPOINT_EVERY = 250;

export function registerWorldEncoder(program: Command): void {
  const world =
    program.commands.find((c) => c.name() === 'world') ?? program.command('world').description('the procedural world');
  world
    .command('build-encoder')
    .description(
      'train the world image encoder (self-supervised: no captions, no labels) and export it in the DINOv2 ONNX layout',
    )
    .option(
      '--out <file.onnx>',
      'model to write; the manifest goes next to it as .json',
      'resources/world-encoder.onnx',
    )
    .option('--recipe <file.json>', 'build this recipe (the "recipe" object of a manifest) instead of the shipped one')
    .option('--check', 'rebuild the recipe of the manifest next to --out without writing, and compare the sha256')
    .option('--no-probe', 'skip the attribute probes on a held-out world')
    .option(
      '--probe-only',
      'no training: probe the model at --out (probes + ceiling) and rewrite the probe section of its manifest',
    )
    .option(
      '--repool <pooler.json>',
      'no training: refit the read-out of the model at --out with this pooler recipe ({ grid, dims, scenes }), rewrite model and manifest, probe; the bytes a full build with that pooler gives',
    )
    .option(
      '--join <file.onnx...>',
      "no training: join world encoders built from one recipe at distinct jepa seeds or steps (each with its manifest; an ensemble joins as its members, so it grows by new draws) into an ensemble at --out, their read-out (the first's, or --repool's) fitted over the joint tokens; the bytes a full build of the recipe with all those members gives",
    )
    .option(
      '--checkpoints <dir>',
      'keep step checkpoints here, and go on from the newest one a killed build of the same recipe left (default: <out>.checkpoints beside the model; removed once it is written)',
    )
    .option('--no-checkpoints', 'train without step checkpoints (as --check does: a rebuild from scratch)')
    .option('--checkpoint-every <steps>', 'steps between checkpoints', String(CHECKPOINT_EVERY))
    .option(
      '--probe-world <dir>',
      "held-out world folder for the probes and the ceiling (default: the experiments' default world, seed 0, 5000/1014/1000, generated)",
    )
    .option('--json', 'print one JSON document')
    .action(async (raw: unknown) => {
      const o = parseFlags(Flags, raw);
      if (o.probeWorld && !existsSync(o.probeWorld))
        throw new InputError(`--probe-world: ${o.probeWorld} does not exist`);
      const log = (t: string) => (o.json ? undefined : console.error(t));
      // tfjs, onnxruntime and the world (engine/cli/main.ts)
      const {
        PoolerRecipe,
        WORLD_ENCODER_RECIPE,
        WorldEncoderRecipe,
        buildWorldEncoder,
        describePooler,
        joinWorldEncoders,
        probeWorldEncoder,
        readWorldEncoderManifest,
        repoolWorldEncoder,
      } = await import('../image');
      // model and manifest written together; the probes (unless --no-probe) on the model as written
      const write = async (built: BuiltEncoder): Promise<void> => {
        mkdirSync(dirname(o.out), { recursive: true });
        writeFileAtomic(o.out, built.bytes);
        const probe = o.probe
          ? await probeWorldEncoder(o.out, built.manifest.recipe, o.probeWorld, log, ceiling)
          : null;
        const manifest: WorldEncoderManifest = { file: basename(o.out), ...built.manifest, probe };
        writeJsonAtomic(manifestPath(o.out), manifest);
        report(manifest, o.json);
      };
      if (o.probeOnly) {
        if (o.check || !o.probe || o.join)
          throw new InputError(
            `--probe-only and ${o.check ? '--check' : o.join ? '--join' : '--no-probe'}: choose one`,
          );
        const { manifest } = await readBuilt(o.out);
        const probe = await probeWorldEncoder(o.out, manifest.recipe, o.probeWorld, log, ceiling);
        writeJsonAtomic(manifestPath(o.out), { ...manifest, probe });
        return report({ ...manifest, probe }, o.json);
      }
      if (o.join) {
        const other = (['check', 'recipe'] as const).find((k) => o[k]);
        if (other) throw new InputError(`--join and --${other}: choose one`);
        const pooler = o.repool ? readJson(o.repool, PoolerRecipe, 'a pooler recipe') : undefined;
        const built = await joinWorldEncoders(
          await Promise.all(o.join.map(async (f) => ({ ...(await readBuilt(f)), source: f }))),
          pooler,
          log,
        );
        return write(built);
      }
      if (o.repool) {
        if (o.check || o.recipe) throw new InputError(`--repool and ${o.check ? '--check' : '--recipe'}: choose one`);
        const pooler = readJson(o.repool, PoolerRecipe, 'a pooler recipe');
        const { manifest, bytes } = await readBuilt(o.out);
        const built = await repoolWorldEncoder(bytes, manifest, pooler, o.out);
        log(
          `pooler: ${describePooler(pooler)}, fitted in ${built.manifest.pooler!.seconds.toFixed(1)} s on the model's own ViT (sha256 ${built.manifest.pooler!.baseSha256.slice(0, 16)}…)`,
        );
        return write(built);
      }
      const shipped = o.check ? readWorldEncoderManifest(manifestPath(o.out)) : null;
      if (shipped && o.recipe) throw new InputError('--check rebuilds the recipe in the manifest: leave out --recipe');
      const recipe =
        shipped?.recipe ??
        (o.recipe ? readJson(o.recipe, WorldEncoderRecipe, 'a world-encoder recipe') : WORLD_ENCODER_RECIPE);
      const steps = recipe.jepa.steps;
      // an ensemble's members log their own windows (one bar cannot show them side by side)
      const bar =
        !o.json && process.stderr.isTTY && !recipe.members
          ? new SingleBar(
              { format: 'world encoder [{bar}] {value}/{total} steps  loss {loss}', hideCursor: true },
              Presets.shades_classic,
            )
          : null;
      const ckpt =
        o.check || o.checkpoints === false
          ? undefined
          : { dir: o.checkpoints ?? checkpointsPath(o.out), every: o.checkpointEvery };
      bar?.start(steps, 0, { loss: '-' });
      const built = await buildWorldEncoder(
        recipe,
        {
          onStep: (s) => bar?.update(s.step + 1, { loss: s.loss.toFixed(4) }),
          // no bar (a log file, nohup): a line per loss window, so a plateau shows while the build runs
          onWindow:
            bar || o.json
              ? undefined
              : (step, mean, window) =>
                  log(`step ${step}/${steps}: loss ${mean.toFixed(4)} (mean of the last ${window})`),
          log,
        },
        ckpt,
      );
      bar?.stop();
      if (shipped) {
        const same = shipped.sha256 === built.sha256;
        const res = {
          out: o.out,
          shipped: shipped.sha256,
          rebuilt: built.sha256,
          same,
          seconds: built.manifest.build.seconds,
        };
        if (o.json) console.log(JSON.stringify(res));
        else printTable([res]);
        if (!same)
          throw new Error(
            `${o.out}: the rebuilt encoder's sha256 ${built.sha256} differs from the manifest's ${shipped.sha256}`,
          );
        return;
      }
      await write(built);
      if (ckpt) rmSync(ckpt.dir, { recursive: true, force: true }); // the model and its manifest are on disk
    });
}

// A built model and its manifest, refused unless the manifest describes these bytes.
async function readBuilt(out: string): Promise<{ manifest: WorldEncoderManifest; bytes: Buffer }> {
  const { readWorldEncoderManifest, sha256 } = await import('../image');
  const manifest = readWorldEncoderManifest(manifestPath(out));
  const bytes = readFileSync(out);
  if (sha256(bytes) !== manifest.sha256)
    throw new InputError(`${out}: its sha256 differs from its manifest's; rebuild it instead`);
  return { manifest, bytes };
}

const ceiling: CeilingOf = async (ds, emb, ids) => {
  const { splitCeiling } = await import('../experiment');
  const c = await splitCeiling(ds, { emb, ids }, { dim: CEILING_DIM, k: 10 });
  return c && { r1: c.r1, mknn: c.mknn, dim: c.dim };
};

function report(manifest: WorldEncoderManifest, json?: boolean): void {
  if (json) return console.log(JSON.stringify(manifest));
  printTable([
    {
      out: manifest.file,
      sha256: manifest.sha256.slice(0, 16),
      seconds: manifest.build.seconds,
      lossFirst: manifest.loss.first,
      lossLast: manifest.loss.last,
      parity: manifest.parity.maxAbsDiffPooler,
    },
  ]);
  const probe = manifest.probe;
  if (probe?.ceiling)
    printTable([
      {
        ceiling: `R@1 vs the oracle text (${probe.ceiling.trained.dim}-d)`,
        trained: probe.ceiling.trained.r1,
        randomInit: probe.ceiling.randomInit.r1,
      },
    ]);
  if (probe)
    printTable(
      probe.trained.map((t, i) => ({
        task: t.task,
        trained: t.accuracy,
        pixels: probe.pixels[i].accuracy,
        randomInit: probe.randomInit[i].accuracy,
        chance: t.chance,
      })),
    );
}
