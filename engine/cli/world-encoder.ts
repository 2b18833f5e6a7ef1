// `prh world build-encoder`: rebuild the procedural world's frozen image encoder (engine/image/world-encoder.ts)
// into resources/world-encoder.onnx + .json, or with --check rebuild it and compare its hash with the shipped one.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../errors';
import { WORLD_ENCODER_RECIPE, type WorldEncoderManifest, buildWorldEncoder, probeWorldEncoder, readWorldEncoderManifest } from '../image';
import { parseFlags, printTable } from './output';

const Flags = z.object({
  out: z.string().regex(/\.onnx$/, 'expected a path ending in .onnx'),
  check: z.boolean().optional(),
  probe: z.boolean(), // commander's --no-probe
  probeWorld: z.string().optional(),
  json: z.boolean().optional(),
});

const manifestPath = (onnx: string) => join(dirname(onnx), `${basename(onnx, '.onnx')}.json`);

export function registerWorldEncoder(program: Command): void {
  const world = program.commands.find((c) => c.name() === 'world') ?? program.command('world').description('the procedural world');
  world
    .command('build-encoder')
    .description('train the world image encoder (image JEPA, no captions) and export it in the DINOv2 ONNX layout')
    .option('--out <file.onnx>', 'model to write; the manifest goes next to it as .json', 'resources/world-encoder.onnx')
    .option('--check', 'rebuild without writing and compare the sha256 with the manifest next to --out')
    .option('--no-probe', 'skip the attribute probes on a held-out world')
    .option('--probe-world <dir>', 'held-out world folder for the probes (default: world seed 0, 3000/1000/1000, generated)')
    .option('--json', 'print one JSON document')
    .action(async (raw: unknown) => {
      const o = parseFlags(Flags, raw);
      const shipped = o.check ? readWorldEncoderManifest(manifestPath(o.out)) : null;
      const steps = WORLD_ENCODER_RECIPE.jepa.steps;
      const bar = !o.json && process.stderr.isTTY ? new SingleBar({ format: 'world encoder [{bar}] {value}/{total} steps  loss {loss}', hideCursor: true }, Presets.shades_classic) : null;
      bar?.start(steps, 0, { loss: '-' });
      const built = await buildWorldEncoder(WORLD_ENCODER_RECIPE, {
        onStep: (s) => bar?.update(s.step + 1, { loss: s.loss.toFixed(4) }),
        log: (t) => (o.json ? undefined : console.error(t)),
      });
      bar?.stop();
      if (shipped) {
        const same = shipped.sha256 === built.sha256;
        const res = { out: o.out, shipped: shipped.sha256, rebuilt: built.sha256, same, seconds: built.manifest.build.seconds };
        if (o.json) console.log(JSON.stringify(res));
        else printTable([res]);
        if (!same) throw new Error(`${o.out}: the rebuilt encoder's sha256 ${built.sha256} differs from the manifest's ${shipped.sha256}`);
        return;
      }
      mkdirSync(dirname(o.out), { recursive: true });
      writeFileSync(o.out, built.bytes);
      if (o.probeWorld && !existsSync(o.probeWorld)) throw new InputError(`--probe-world: ${o.probeWorld} does not exist`);
      const probe = o.probe ? await probeWorldEncoder(o.out, WORLD_ENCODER_RECIPE, o.probeWorld, (t) => (o.json ? undefined : console.error(t))) : null;
      const manifest: WorldEncoderManifest = { file: basename(o.out), ...built.manifest, probe };
      writeFileSync(manifestPath(o.out), `${JSON.stringify(manifest, null, 2)}\n`);
      if (o.json) return console.log(JSON.stringify(manifest));
      printTable([{ out: o.out, sha256: built.sha256.slice(0, 16), seconds: manifest.build.seconds, lossFirst: manifest.loss.first, lossLast: manifest.loss.last, parity: manifest.parity.maxAbsDiffPooler }]);
      if (probe)
        printTable(probe.trained.map((t, i) => ({ task: t.task, trained: t.accuracy, pixels: probe.pixels[i].accuracy, randomInit: probe.randomInit[i].accuracy, chance: t.chance })));
    });
}
