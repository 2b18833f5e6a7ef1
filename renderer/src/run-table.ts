// The run table: one row per run with its key config (arms, epochs, batch, λ_eff, seeds, dataset, image encoder)
// and results (R@1 per arm, good − bad with its CI), tags and note; sorted, filtered and searched.
import type { RunIndexEntry } from '../../shared/api';
import type { ExperimentConfig } from '../../shared/experiment';
import type { RunConfig, RunState } from '../../shared/runs';
import { resolveLambda } from '../../shared/train';
import { experimentResult, recordedLambEff } from './experiment';

export type RunRow = {
  id: string;
  name: string;
  kind: string;
  status: RunState['status'];
  created: string;
  progress: number | null;
  arms: string[];
  epochs: number | null;
  batch: number | null;
  lambEff: number | null; // as training recorded it; until then as configured
  seeds: number[];
  dataset: string;
  encoder: string;
  r1: Record<string, number>; // arm -> R@1 (mean over seeds)
  lr: Record<string, number>; // arm -> the peak lr its schedule reached (as recorded; else as configured)
  warmup: number | null; // warmup steps as configured (null: the default, 50 or a tenth of a short run)
  select: string | null; // the checkpoint each arm is scored at
  minutes: number | null; // from start to end (or to now, while it runs)
  goodBad: { estimate: number; lo: number; hi: number } | null; // R@1, seed of the first good/bad pair
  tags: string[];
  note: string;
  archived: boolean;
  executor: 'local' | 'slurm' | null; // where an experiment's arms compute
};

const base = (p: string) => p.split(/[\\/]/).filter(Boolean).pop() ?? p;

function settings(c: RunConfig | null) {
  if (!c) return { arms: [], epochs: null, batch: null, lambEff: null, seeds: [], dataset: '', encoder: '' };
  if (c.kind === 'experiment') {
    const e = c as ExperimentConfig;
    return {
      arms: e.arms,
      epochs: e.train.epochs,
      batch: e.train.batch,
      lambEff: resolveLambda(e.train).lambEff,
      seeds: e.seeds,
      dataset: e.data,
      encoder: e.imageViews
        ? `2x2: ${e.imageViews.arms.join(', ')} image arms`
        : e.image.model === 'world'
          ? 'world'
          : base(e.image.model),
    };
  }
  if (c.kind === 'train')
    return {
      arms: [c.arm],
      epochs: c.epochs,
      batch: c.batch,
      lambEff: resolveLambda(c).lambEff,
      seeds: [c.seed],
      dataset: c.data,
      encoder: '',
    };
  if (c.kind === 'world.generate')
    return { arms: [], epochs: null, batch: null, lambEff: null, seeds: [c.seed], dataset: c.out, encoder: '' };
  return { arms: [], epochs: null, batch: null, lambEff: null, seeds: [c.params.seed], dataset: '', encoder: '' };
}

// The λ_eff training resolved and recorded (a train run's result, an experiment's first JEPA arm); null before
// there is one, when the row shows the configured value.
function lambEffRecorded(s: RunState, result: ReturnType<typeof experimentResult>): number | null {
  if (result) return recordedLambEff(result);
  const r = s.kind === 'train' ? (s.result as { lambEff?: unknown } | null) : null;
  return typeof r?.lambEff === 'number' ? r.lambEff : null;
}

export function runRow(s: RunState, e: RunIndexEntry | undefined): RunRow {
  const result = experimentResult(s);
  const configured = settings(e?.config ?? null);
  const r1: Record<string, number> = {};
  for (const arm of new Set(result?.arms.map((a) => a.arm) ?? [])) {
    const of = result!.arms.filter((a) => a.arm === arm);
    r1[arm] = of.reduce((acc, a) => acc + a.r1.estimate, 0) / of.length;
  }
  const gb = result?.differences.find((d) => d.metric === 'r1' && d.a === 'good' && d.b === 'bad') ?? null;
  const c = e?.config ?? null;
  const lr: Record<string, number> = {};
  if (result) for (const a of result.arms) lr[a.arm] = a.lrReached ?? a.lr ?? NaN;
  else if (c?.kind === 'experiment') for (const a of c.arms) lr[a] = c.armLr?.[a] ?? c.train.lr;
  else if (c?.kind === 'train') lr[c.arm] = c.lr;
  const train = c?.kind === 'experiment' ? c.train : c?.kind === 'train' ? c : null;
  const end = s.endedAt ? Date.parse(s.endedAt) : s.status === 'running' ? Date.now() : null;
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    status: s.status,
    created: s.createdAt,
    progress: s.progress && s.progress.total ? s.progress.done / s.progress.total : null,
    ...configured,
    lambEff: lambEffRecorded(s, result) ?? configured.lambEff,
    r1,
    lr,
    warmup: train?.warmupSteps ?? null,
    select: train?.select ?? null,
    minutes: s.startedAt && end !== null ? (end - Date.parse(s.startedAt)) / 60_000 : null,
    goodBad: gb && { estimate: gb.estimate, lo: gb.lo, hi: gb.hi },
    tags: e?.annotation.tags ?? [],
    note: e?.annotation.note ?? '',
    archived: e?.annotation.archived ?? false,
    executor: e?.executor ?? null,
  };
}

export type SortKey =
  | 'name'
  | 'kind'
  | 'status'
  | 'created'
  | 'epochs'
  | 'batch'
  | 'lambEff'
  | 'dataset'
  | 'goodBad'
  | 'warmup'
  | 'select'
  | 'minutes'
  | 'encoder'
  | `r1:${string}`
  | `lr:${string}`;
export type TableQuery = {
  search: string;
  status: string;
  kind: string;
  tag: string;
  archived: boolean;
  sort: SortKey;
  desc: boolean;
};

const sortValue = (r: RunRow, k: SortKey): string | number | null =>
  k.startsWith('r1:')
    ? (r.r1[k.slice(3)] ?? null)
    : k.startsWith('lr:')
      ? (r.lr[k.slice(3)] ?? null)
      : k === 'goodBad'
        ? (r.goodBad?.estimate ?? null)
        : (r[k as Exclude<SortKey, `r1:${string}` | `lr:${string}` | 'goodBad'>] as string | number | null);

// Search matches name, id, kind, dataset, encoder, arms, tags and note, every word somewhere (case-insensitive).
// Empty cells sort last either way.
export function queryRows(rows: RunRow[], q: TableQuery): RunRow[] {
  const words = q.search.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = (r: RunRow) =>
    [r.name, r.id, r.kind, r.dataset, r.encoder, ...r.arms, ...r.tags, r.note].join(' ').toLowerCase();
  return rows
    .filter(
      (r) =>
        (q.archived || !r.archived) &&
        (!q.status || r.status === q.status) &&
        (!q.kind || r.kind === q.kind) &&
        (!q.tag || r.tags.includes(q.tag)),
    )
    .filter((r) => words.every((w) => hay(r).includes(w)))
    .sort((a, b) => {
      const x = sortValue(a, q.sort),
        y = sortValue(b, q.sort);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return q.desc ? -c : c;
    });
}

export const shortPath = base;
