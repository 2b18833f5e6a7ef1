// `prh match`: the image drop from the command line. Each arm of a finished experiment ranks a caption pool for image
// files; for the dataset's own photos it also says where their captions rank, and how often one is in the top k.
import { Command } from 'commander';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { MatchResult } from '../../shared/api';
import { isImageFile } from '../data';
import { InputError } from '../errors';
import { numberOption, printTable } from './output';
import { runsFolder } from './runs';

// A run id in the runs folder, or the experiment's folder itself.
function experimentDir(ref: string, runs?: string): string {
  if (existsSync(ref) && statSync(ref).isDirectory()) return resolve(ref);
  const dir = join(runsFolder(runs), ref);
  if (!existsSync(join(dir, 'config.json')))
    throw new InputError(`${ref}: neither an experiment folder nor a run id in ${dirname(dir)}`);
  return dir;
}

// Image files named on the command line; a folder stands for the images directly inside it.
function imageFiles(paths: string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p)) throw new InputError(`${p}: no such file or folder`);
    if (!statSync(p).isDirectory()) return [p];
    return readdirSync(p)
      .filter(isImageFile)
      .sort()
      .map((f) => join(p, f));
  });
}

// Per arm: how many dataset photos (whose captions are in the pool) have an own caption in the top k captions, and
// how many are themselves in the top k photos (each photo at its best caption), with the median ranks; arms with no
// such photo are left out.
export type OwnSummary = {
  arm: string;
  seed: number;
  photos: number;
  inTopK: number;
  medianBestRank: number;
  photoInTopK: number;
  medianPhotoRank: number;
};
export async function ownSummary(r: MatchResult, k: number): Promise<OwnSummary[]> {
  const { percentile } = await import('../metrics');
  const median = (xs: number[]) => percentile(Float64Array.from(xs).sort(), 0.5);
  return r.arms.flatMap((a) => {
    const owns = a.images.flatMap((im) => (im.own?.ranks ? [im.own] : []));
    if (!owns.length) return [];
    const best = owns.map((o) => Math.min(...o.ranks!.map((x) => x ?? Infinity)));
    const photo = owns.map((o) => o.photoRank ?? Infinity);
    return [
      {
        arm: a.arm,
        seed: a.seed,
        photos: owns.length,
        inTopK: best.filter((x) => x <= k).length,
        medianBestRank: median(best),
        photoInTopK: photo.filter((x) => x <= k).length,
        medianPhotoRank: median(photo),
      },
    ];
  });
}

export function registerMatch(program: Command): void {
  program
    .command('match <experiment> <images...>')
    .description(
      "the image drop: each arm of a finished experiment ranks a caption pool for these images (files or folders); dataset photos also get their own captions' ranks",
    )
    .option('--runs <dir>', 'runs folder the experiment id is looked up in (default: the app settings)')
    .option(
      '--pool <pool>',
      "'test' (all captions of the experiment's test photos) or any caption dataset, folder or file (all its captions)",
      'test',
    )
    .option('--top <k>', 'captions shown per image and arm', numberOption('top'), 5)
    .option(
      '--per-photo',
      "list each pool photo once, at its best caption (else a photo's five paraphrases can fill the top k)",
    )
    .option('--json', 'print the whole result as JSON')
    .action(
      async (
        ref: string,
        paths: string[],
        o: { runs?: string; pool: string; top: number; perPhoto?: boolean; json?: boolean },
      ) => {
        if (!Number.isInteger(o.top) || o.top < 1)
          throw new InputError(`--top: expected a whole number >= 1, got ${o.top}`);
        const files = imageFiles(paths);
        if (!files.length)
          throw new InputError(`${paths.join(', ')}: no image files (.jpg .jpeg .png .webp .gif .bmp .avif)`);
        const images = files.map((f) => ({ name: basename(f), base64: readFileSync(f).toString('base64') }));
        const pool = o.pool === 'test' ? 'test' : resolve(o.pool);
        // the arms' encoders: tfjs (engine/cli/main.ts)
        const { matchDroppedImages } = await import('../experiment');
        const r = await matchDroppedImages(experimentDir(ref, o.runs), images, pool, o.top, Boolean(o.perPhoto));
        const summary = await ownSummary(r, o.top);
        if (o.json) return console.log(JSON.stringify({ ...r, ownSummary: summary }));
        console.log(
          `pool: ${r.pool.name} (${r.pool.size} captions of ${r.pool.photos} photos)${o.perPhoto ? ', each photo once' : ''}`,
        );
        printTable(
          r.arms.flatMap((a) =>
            a.images.map((im) => ({
              image: im.name,
              arm: a.arm,
              seed: a.seed,
              cosine: im.top[0]?.cosine,
              'best match': im.top[0]?.caption ?? '',
              'own caption ranks': im.own
                ? im.own.ranks
                  ? im.own.ranks.map((x) => x ?? '–').join(' ')
                  : `(${im.own.split} photo, not in pool)`
                : '',
              'photo rank': im.own?.photoRank ?? '',
            })),
          ),
        );
        for (const s of r.skipped) console.error(`skipped ${s.name}: ${s.reason}`);
        if (summary.length) {
          console.log(
            `\ndataset photos with an own caption in the top ${o.top} captions, and themselves in the top ${o.top} photos:`,
          );
          printTable(
            summary.map((s) => ({
              arm: s.arm,
              seed: s.seed,
              photos: s.photos,
              [`caption in top ${o.top}`]: s.inTopK,
              'median best caption rank': s.medianBestRank,
              [`photo in top ${o.top}`]: s.photoInTopK,
              'median photo rank': s.medianPhotoRank,
            })),
          );
        }
      },
    );
}
