// The experiment lab's API methods: datasets and their gallery, the view inspector, figure, table and bundle
// exports, and the lab task. Light work answers inline; image matching and bundling compute in a child process
// (lab-task.ts), so the main process (Electron main, `prh serve`) stays responsive.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ApiArgs, DatasetInfo, ExportedFile, Gallery, InspectedView, PhotoViews } from '../../shared/api';
import type { MetricRecord } from '../../shared/runs';
import type { TableSpec } from '../../shared/tables';
import { splitCounts } from '../../shared/dataset';
import { TrainConfig, ViewConfig } from '../../shared/train';
import { writeFileAtomic } from '../atomic';
import { callChild, entryCommand } from '../child';
import { galleryFromDataset, galleryJson, openDataset, type OpenedDataset } from '../data';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { metricsToCsv, parseTable, renderFigure, tableToCsv, tableToLatex, tableToMarkdown } from '../report';
import { captionIds, loadTokenizer, trainWordPiece, type Tokenizer } from '../text';
import type { LabTask } from './lab-task';
import { DEFAULT_WORLD, datasetsDir } from './settings';

// --- datasets ----------------------------------------------------------------------------------------------

// Opened datasets (any format engine/data reads, by folder or file), keyed by path and the caption file's mtime:
// the gallery pages through one without re-reading it.
const opened = new Map<string, { mtimeMs: number; ds: OpenedDataset }>();
function open(path: string): OpenedDataset {
  const hit = opened.get(path);
  if (hit && existsSync(hit.ds.file) && statSync(hit.ds.file).mtimeMs === hit.mtimeMs) return hit.ds;
  const ds = openDataset(path);
  opened.set(path, { mtimeMs: statSync(ds.file).mtimeMs, ds });
  return ds;
}

const NO_DATASET = /: no dataset here \(/; // openDataset on a folder that holds none

// world: the default world's folder, listed (as not generated) until its dataset.json is written.
function info(path: string, world = false): DatasetInfo {
  if (!existsSync(path) || (world && !existsSync(join(path, 'dataset.json'))))
    return { path, name: path.split(/[\\/]/).pop() ?? path, source: 'world', exists: false, counts: null, params: {} };
  const { dataset } = open(path);
  return {
    path,
    name: dataset.name,
    source: dataset.source,
    exists: true,
    counts: splitCounts(dataset),
    params: dataset.params,
  };
}

// The default world first (generated or not), then every dataset under <user data>/datasets/: a dataset folder or a
// folder holding a real dataset's own files (Flickr8k, Flickr30k, COCO, a caption table, ...).
export function listDatasets(userData: string): DatasetInfo[] {
  const root = datasetsDir(userData);
  const world = join(root, DEFAULT_WORLD);
  const others = existsSync(root)
    ? readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory() && e.name !== DEFAULT_WORLD)
        .map((e) => join(root, e.name))
        .sort()
    : [];
  return [world, ...others].flatMap((p) => {
    try {
      return [info(p, p === world)];
    } catch (err) {
      if (err instanceof InputError && NO_DATASET.test(err.message)) return [];
      return [
        {
          path: p,
          name: `${p.split(/[\\/]/).pop()} (unreadable: ${(err as Error).message})`,
          source: 'unknown',
          exists: false,
          counts: null,
          params: {},
        },
      ];
    }
  });
}

export function datasetGallery(q: ApiArgs<'datasetGallery'>): Gallery {
  const ds = open(q.path);
  const needle = q.query?.trim().toLowerCase();
  const images = ds.dataset.images.filter(
    (im) =>
      (!q.split || im.split === q.split) &&
      (!needle ||
        im.id.toLowerCase().includes(needle) ||
        im.captions.some((c) => c.text.toLowerCase().includes(needle))),
  );
  const items = galleryJson(
    galleryFromDataset({ ...ds, dataset: { ...ds.dataset, images } }, { from: q.from, count: q.count }),
  );
  return {
    path: q.path,
    total: images.length,
    items: items.map((it) => ({
      id: it.id,
      split: it.split,
      image: it.image,
      captions: it.captions.map((c) => c.text),
      evalCaption: it.evalCaption,
    })),
  };
}

// --- view inspector ------------------------------------------------------------------------------------------

// Without a run, a WordPiece trained on (at most) the first 20k training captions: the inspector only shows
// spans and masks, so the exact vocabulary matters little, and this keeps a big dataset's first look quick.
const INSPECT_CAPTIONS = 20_000;
const tokenizers = new Map<string, Tokenizer>();
function datasetTokenizer(path: string, ds: OpenedDataset): Tokenizer {
  let tk = tokenizers.get(path);
  if (!tk) {
    const texts = ds.dataset.images
      .filter((im) => im.split === 'train')
      .flatMap((im) => im.captions.map((c) => c.text))
      .slice(0, INSPECT_CAPTIONS);
    tk = trainWordPiece(texts.length ? texts : ds.dataset.images.flatMap((im) => im.captions.map((c) => c.text)), 1000);
    tokenizers.set(path, tk);
  }
  return tk;
}

// A train run keeps tokenizer.json in its folder; an experiment keeps its arms' runs under arms/.
function runTokenizer(runDir: string): { tk: Tokenizer; views: ViewConfig; maxLen: number } {
  const candidates = [
    runDir,
    ...(existsSync(join(runDir, 'arms'))
      ? readdirSync(join(runDir, 'arms'))
          .sort()
          .map((d) => join(runDir, 'arms', d))
      : []),
  ];
  const dir = candidates.find((d) => existsSync(join(d, 'tokenizer.json')));
  if (!dir) throw new InputError(`${runDir}: no tokenizer.json yet (the run has not started training)`);
  const cfgFile = join(dir, 'config.json');
  const cfg = TrainConfig.safeParse(existsSync(cfgFile) ? readJson(cfgFile, z.unknown()) : null); // torn: an error naming the file
  return {
    tk: loadTokenizer(join(dir, 'tokenizer.json')),
    views: cfg.success ? cfg.data.views : ViewConfig.parse({}),
    maxLen: cfg.success ? cfg.data.maxLen : 64,
  };
}

export async function inspectPhotoViews(q: ApiArgs<'photoViews'>, runDir: string | null): Promise<PhotoViews> {
  const { photoViews } = await import('../train/photo-views'); // lazily: it pulls in tfjs, which `prh serve` need not load
  const ds = open(q.path);
  const im = ds.dataset.images.find((x) => x.id === q.photo);
  if (!im) throw new InputError(`${q.path}: no photo with id ${JSON.stringify(q.photo)}`);
  const { tk, views, maxLen } = runDir
    ? runTokenizer(runDir)
    : { tk: datasetTokenizer(q.path, ds), views: ViewConfig.parse({}), maxLen: 64 };
  const captions = im.captions.map((c) => c.text);
  const arms = photoViews(tk, captions, { views, seed: q.seed, photo: im.id, maxLen });
  // Per view: the whole source caption's tokens, the kept span [start, end) and which of its tokens were masked.
  const captionTokens = captions.map((t) => {
    const ids = captionIds(tk, t, maxLen); // as photoViews cuts them
    return ids.length ? ids.map((i) => tk.vocab[i]) : [tk.vocab[tk.unk]];
  });
  const inspect = (vs: typeof arms.good): InspectedView[] =>
    vs.map((v, index) => {
      const masked = captionTokens[v.caption].map(() => false);
      for (const m of v.masked) masked[v.start + m] = true;
      return {
        index,
        global: v.kind === 'global',
        caption: v.caption,
        tokens: captionTokens[v.caption],
        span: [v.start, v.start + v.length],
        masked,
      };
    });
  return { photo: im.id, captions, good: inspect(arms.good), bad: inspect(arms.bad), seed: q.seed };
}

// --- exports -----------------------------------------------------------------------------------------------

// One naming scheme for every file leaving the lab: `<item id>.<ext>` inside a run (its report/ as the run wrote it),
// `<run id>.<item id>.<ext>` as a download, so files of different runs never collide in a downloads folder.
// A copy of a UI export goes to the run's report/exports/, never over a file there: an identical file is reused,
// a different one gets the next free `-2`, `-3` suffix.
const downloadName = (item: string, runId: string | undefined) => (runId ? `${runId}.${item}` : item);

function keepCopy(dir: string, name: string, bytes: Uint8Array): string {
  const dot = name.lastIndexOf('.');
  for (let i = 1; ; i++) {
    const file = join(dir, i === 1 ? name : `${name.slice(0, dot)}-${i}${name.slice(dot)}`);
    if (!existsSync(file)) {
      writeFileAtomic(file, bytes);
      return file;
    }
    if (Buffer.from(bytes).equals(readFileSync(file))) return file;
  }
}

// The bytes for a download, and a copy in the run's report/exports/ when a run is named.
function exported(
  item: string,
  mime: string,
  data: Uint8Array | string,
  run: { id: string; dir: string } | null,
): ExportedFile {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const savedTo = run ? keepCopy(join(run.dir, 'report', 'exports'), item, bytes) : null;
  return { filename: downloadName(item, run?.id), mime, base64: Buffer.from(bytes).toString('base64'), savedTo };
}

// Renders the figure the user sees to a file.
export async function exportFigure(q: ApiArgs<'exportFigure'>, run: RunRef): Promise<ExportedFile> {
  const { bytes, mime } = await renderFigure(q.spec, q.format);
  return exported(`${q.spec.id}.${q.format}`, mime, bytes, run);
}
type RunRef = { id: string; dir: string } | null;

const TABLE_FORMATS = {
  csv: { ext: 'csv', mime: 'text/csv', render: tableToCsv },
  latex: { ext: 'tex', mime: 'application/x-tex', render: tableToLatex },
  md: { ext: 'md', mime: 'text/markdown', render: tableToMarkdown },
} as const;

export function exportTable(q: ApiArgs<'exportTable'>, run: RunRef): ExportedFile {
  const f = TABLE_FORMATS[q.format];
  const table = parseTable(q.table as TableSpec); // an InputError naming the table when it is malformed
  return exported(`${table.id}.${f.ext}`, f.mime, f.render(table), run);
}

// A run's metrics.jsonl as one CSV table (a row per record), for pandas, R or a spreadsheet.
export function exportMetrics(records: MetricRecord[], run: { id: string; dir: string }): ExportedFile {
  return {
    filename: downloadName('metrics.csv', run.id),
    mime: 'text/csv',
    base64: Buffer.from(metricsToCsv(records)).toString('base64'),
    savedTo: null,
  };
}

// The zip is built in the child (a run can be large); it is not kept inside the run folder it bundles. Checkpoints
// stay out unless asked for (then those up to 100 MiB each go in).
export async function exportBundle(runDir: string, id: string, checkpoints: boolean): Promise<ExportedFile> {
  const tmp = mkdtempSync(join(tmpdir(), 'prh-bundle-'));
  try {
    const out = join(tmp, `${id}.zip`);
    await runLabTask({ task: 'bundle', runDir, out, ...(checkpoints ? {} : { maxCheckpointBytes: 0 }) });
    return {
      filename: `${id}.zip`,
      mime: 'application/zip',
      base64: readFileSync(out).toString('base64'),
      savedTo: null,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// --- the child process ----------------------------------------------------------------------------------------

export const runLabTask = (task: LabTask): Promise<unknown> =>
  callChild(entryCommand(import.meta.url, 'lab-task.ts', 'lab-task.js'), task, `the lab task (${task.task})`);
