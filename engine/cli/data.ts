// `prh data inspect`, `prh world generate`, `prh world preview`: datasets and the procedural world from the command line.
import { writeFileSync } from 'node:fs';
import { Presets, SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { splitCounts } from '../../shared/dataset';
import {
  contactSheet,
  formatInspection,
  galleryFromDataset,
  galleryJson,
  generateWorld,
  inspectDataset,
  NUISANCE_LEVELS,
  importDataset,
  openDataset,
  PRESET_NAMES,
  previewWorld,
  type GalleryItem,
  type WorldOptions,
} from '../data';
import { InputError } from '../errors';
import { parseFlags, printTable } from './output';

const int = z.coerce.number().int().nonnegative();
// Raw CLI strings -> world options; zod names the flag that is wrong.
const WorldFlags = z.object({
  seed: int.optional(),
  preset: z.enum(PRESET_NAMES as [string, ...string[]]).optional(),
  nuisance: z.enum(NUISANCE_LEVELS).optional(),
  diversity: z.enum(['on', 'off']).optional(),
  size: z
    .string()
    .regex(/^\d+,\d+,\d+$/, 'expected TRAIN,VAL,TEST image counts, e.g. 5000,1014,1000')
    .transform((s) => s.split(',').map(Number))
    .optional(),
  imageSize: int.optional(),
});

const count = (flag: string, v: string | undefined, fallback: number): number => {
  const r = int.safeParse(v ?? fallback);
  if (!r.success) throw new InputError(`--${flag}: expected a whole number >= 0, got "${v}"`);
  return r.data;
};

function worldOptions(flags: unknown): WorldOptions {
  const f = parseFlags(WorldFlags, flags);
  return {
    seed: f.seed,
    preset: f.preset as WorldOptions['preset'],
    nuisance: f.nuisance,
    diversity: f.diversity === undefined ? undefined : f.diversity === 'on',
    splits: f.size ? { train: f.size[0], val: f.size[1], test: f.size[2] } : undefined,
    imageSize: f.imageSize,
  };
}

const worldFlags = (c: Command) =>
  c
    .option('--seed <n>', 'world seed (default 0)')
    .addOption(
      new Option('--preset <name>', 'paper-like (default): diversity off + weak nuisance; strong; null').choices(
        PRESET_NAMES,
      ),
    )
    .addOption(new Option('--nuisance <level>', 'caption nuisance, overrides the preset').choices([...NUISANCE_LEVELS]))
    .addOption(
      new Option('--diversity <on|off>', 'annotator wording diversity, overrides the preset').choices(['on', 'off']),
    )
    .option('--size <train,val,test>', 'scenes per split (default 5000,1014,1000)')
    .option('--image-size <px>', 'image side in pixels (default 64)')
    .option('--json', 'print one JSON document');

function printGallery(items: GalleryItem[]): void {
  for (const it of items) {
    console.log(
      `${it.id} (${it.split})${it.state ? `  ${it.state.background}: ${it.state.objects.map((o) => `${o.size} ${o.colour} ${o.shape}@${o.cell}`).join(', ')}` : ''}`,
    );
    it.captions.forEach((c, k) => console.log(`  ${k === it.evalCaption ? '*' : ' '} ${c.text}`));
  }
}

export function registerData(program: Command): void {
  const data = program.command('data').description('datasets in the shared layout, and readers of real data');
  data
    .command('inspect')
    .description(
      'counts, caption lengths, vocabulary, missing images, duplicates of a dataset folder or a real dataset file',
    )
    .argument(
      '<path>',
      'dataset folder (dataset.json), Karpathy dataset_*.json, Flickr8k (captions.txt / Flickr8k.token.txt), Flickr30k results*.token/.csv, Multi30k folder, COCO captions_*.json, image,caption CSV/JSONL',
    )
    .option('--images <dir>', 'image folder (default: images/ or the download name next to the captions)')
    .option('--eval-caption <k>', 'evaluation caption index for real data (default 0)')
    .option('--split-seed <n>', 'seed of the split of data without one (default 0)')
    .option('--json', 'print one JSON document')
    .action((path: string, o: { images?: string; evalCaption?: string; splitSeed?: string; json?: boolean }) => {
      const evalCaption = o.evalCaption === undefined ? undefined : count('eval-caption', o.evalCaption, 0);
      const split = o.splitSeed === undefined ? undefined : { seed: count('split-seed', o.splitSeed, 0) };
      const report = inspectDataset(openDataset(path, { imagesDir: o.images, evalCaption, split }));
      console.log(o.json ? JSON.stringify(report) : formatInspection(report));
    });

  data
    .command('import')
    .description('write any supported dataset as a dataset folder (dataset.json + images/): a frozen copy')
    .argument('<src>', 'dataset folder or caption file in any format inspect reads')
    .requiredOption('--out <dir>', 'dataset folder to write')
    .option('--images <dir>', 'image folder (default: images/ or the download name next to the captions)')
    .option('--eval-caption <k>', 'evaluation caption index (default 0)')
    .option('--split-seed <n>', 'seed of the split of data without one (default 0)')
    .option('--no-images', 'write the captions only, no photos')
    .option('--force', 'overwrite an existing dataset.json')
    .option('--json', 'print one JSON document')
    .action(
      (
        src: string,
        o: {
          out: string;
          images?: string | false;
          evalCaption?: string;
          splitSeed?: string;
          force?: boolean;
          json?: boolean;
        },
      ) => {
        const evalCaption = o.evalCaption === undefined ? undefined : count('eval-caption', o.evalCaption, 0);
        const split = o.splitSeed === undefined ? undefined : { seed: count('split-seed', o.splitSeed, 0) };
        // commander: --no-images sets images false; --images DIR a string
        const opened = openDataset(src, {
          imagesDir: typeof o.images === 'string' ? o.images : undefined,
          evalCaption,
          split,
        });
        const r = importDataset(opened, o.out, { images: o.images !== false, force: o.force });
        const summary = {
          out: o.out,
          format: opened.format,
          ...splitCounts(opened.dataset),
          copied: r.copied,
          split: String(opened.dataset.params.split ?? 'own'),
        };
        if (o.json) console.log(JSON.stringify(summary));
        else printTable([summary]);
      },
    );

  const world = program
    .command('world')
    .description('the procedural world: scenes, five annotators with nuisance, images');
  worldFlags(world.command('generate').description('generate the world into a dataset folder'))
    .requiredOption('--out <dir>', 'dataset folder to write')
    .option('--force', 'overwrite an existing dataset.json')
    .action((o: Record<string, unknown> & { out: string; force?: boolean; json?: boolean }) => {
      const bar =
        !o.json && process.stderr.isTTY
          ? new SingleBar({ format: 'world [{bar}] {value}/{total} scenes', hideCursor: true }, Presets.shades_classic)
          : null;
      const r = generateWorld(o.out, worldOptions(o), {
        force: o.force,
        onProgress: (done, total) => (bar?.isActive ? bar.update(done) : bar?.start(total, done)),
      });
      bar?.stop();
      const summary = {
        dir: r.dir,
        name: r.dataset.name,
        ...splitCounts(r.dataset),
        seconds: r.seconds,
        scenesPerSecond: r.dataset.images.length / r.seconds,
      };
      if (o.json) console.log(JSON.stringify({ ...summary, params: r.params }));
      else {
        printTable([summary]);
        console.log(
          `preset ${r.params.preset}: diversity ${r.params.diversity ? 'on' : 'off'}, nuisance ${r.params.nuisance} (${r.params.nuisanceTokens} tokens, consistency ${r.params.consistency}), seed ${r.params.seed}`,
        );
      }
    });
  worldFlags(
    world
      .command('preview')
      .description('a few scenes with image and five captions; --sheet writes a contact sheet PNG'),
  )
    .option('--dir <path>', 'preview an existing dataset (any format inspect reads) instead of generating')
    .option('--count <n>', 'scenes (default 16)')
    .option('--from <i>', 'first scene (default 0)')
    .option('--sheet <file.png>', 'write a contact sheet PNG')
    .action(
      async (
        o: Record<string, unknown> & { dir?: string; count?: string; from?: string; sheet?: string; json?: boolean },
      ) => {
        const range = { count: count('count', o.count, 16), from: count('from', o.from, 0) };
        const items = o.dir
          ? galleryFromDataset(openDataset(o.dir), range)
          : previewWorld({ ...worldOptions(o), ...range });
        if (o.sheet) writeFileSync(o.sheet, await contactSheet(items));
        if (o.json) console.log(JSON.stringify({ sheet: o.sheet ?? null, scenes: galleryJson(items) }));
        else {
          printGallery(items);
          if (o.sheet) console.log(`contact sheet: ${o.sheet}`);
        }
      },
    );
}
