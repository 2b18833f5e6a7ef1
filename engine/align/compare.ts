// Several arms on the same test pairs, with the paired bootstrap (docs/reference.md#paired-bootstrap): per-query hits are computed once,
// then the same B resampled index vectors score every arm, giving CIs for each score and each difference.
import { z } from 'zod';
import { InputError } from '../errors';
import { type BootstrapResult, pairedBootstrap } from '../metrics';
import { type Evaluation, EmbeddingsGuard, evaluate } from './evaluate';
import { MapKind } from './map-kind';
import { RowSelection } from './rows';

export const CompareOptions = z.object({
  arms: z.array(z.object({ name: z.string().min(1), image: EmbeddingsGuard, text: EmbeddingsGuard })).min(1),
  fit: RowSelection,
  test: RowSelection,
  k: z.number().int().positive().default(10),
  map: z.enum(MapKind).default('procrustes'),
  seed: z.number().int().default(0),
  resamples: z.number().int().positive().default(2000),
  level: z.number().gt(0).lt(1).default(0.95),
});
export type CompareOptions = z.input<typeof CompareOptions>;

export const METRICS = [
  'imageToText.r1',
  'imageToText.r5',
  'imageToText.r10',
  'textToImage.r1',
  'textToImage.r5',
  'textToImage.r10',
  'mknn',
] as const;
export type MetricName = (typeof METRICS)[number];

export type Comparison = {
  arms: Array<{ name: string } & Evaluation>;
  // metric -> bootstrap over arms (arms with a degenerate mutual k-NN are left out of 'mknn')
  bootstrap: Record<MetricName, BootstrapResult | null>;
};

function perItem(e: Evaluation, metric: MetricName): number[] | null {
  if (metric === 'mknn') return e.mknn.degenerate ? null : e.perQueryHits.mknn;
  const [dir, k] = metric.split('.') as ['imageToText' | 'textToImage', 'r1' | 'r5' | 'r10'];
  return e.perQueryHits[dir][k];
}

export async function compareArms(opts: CompareOptions): Promise<Comparison> {
  const o = CompareOptions.parse(opts);
  const names = o.arms.map((a) => a.name);
  if (new Set(names).size !== names.length) throw new InputError(`arm names must be unique: ${names.join(', ')}`);
  const arms: Comparison['arms'] = [];
  for (const arm of o.arms) {
    arms.push({
      name: arm.name,
      ...(await evaluate({
        image: arm.image,
        text: arm.text,
        fit: o.fit,
        test: o.test,
        k: o.k,
        map: o.map,
        seed: o.seed,
      })),
    });
  }
  const bootstrap = {} as Comparison['bootstrap'];
  for (const metric of METRICS) {
    const samples: Record<string, number[]> = {};
    for (const a of arms) {
      const x = perItem(a, metric);
      if (x) samples[a.name] = x;
    }
    bootstrap[metric] = Object.keys(samples).length
      ? pairedBootstrap(samples, { resamples: o.resamples, seed: o.seed, level: o.level })
      : null;
  }
  return { arms, bootstrap };
}
