// A pair-count sweep on a finished experiment, as many fit pairs and repeats as asked (the Sweeps screen; `prh sweep
// pairs` does the same on files): each scored arm's map fitted on n random fit pairs, `repeats` times, and scored on
// the test pairs, on the embeddings the experiment scored.
import { join } from 'node:path';
import type { SweepRow } from '../../shared/experiment';
import { RunConfig } from '../../shared/runs';
import { sweepPairs } from '../align';
import { InputError } from '../errors';
import { readJson } from '../json-file';
import { armLayout, experimentLayout, FinishedArms } from './layout';
import { pairSplits, readSide } from './pairs';

export async function sweepExperiment(runDir: string, o: { counts: number[]; repeats: number }): Promise<SweepRow[]> {
  const config = readJson(join(runDir, 'config.json'), RunConfig, 'a run config');
  if (config.kind !== 'experiment') throw new InputError(`${runDir}: not an experiment`);
  const layout = experimentLayout(runDir);
  const { arms } = readJson(layout.result, FinishedArms, 'an experiment result');
  const images = { val: readSide(layout.image.val), test: readSide(layout.image.test) };
  const rows: SweepRow[] = [];
  for (const a of arms) {
    const emb = armLayout(join(layout.arms, a.runId)).embeddings(a.epoch);
    const p = pairSplits(images, { val: readSide(emb.val), test: readSide(emb.test) });
    const nFit = p.fit.end - p.fit.start;
    const over = o.counts.filter((n) => n > nFit);
    if (over.length) throw new InputError(`fit-pair counts ${over.join(', ')}: the experiment has ${nFit} fit pairs`);
    const sw = await sweepPairs({ ...p, counts: o.counts, repeats: o.repeats, seed: config.eval.seed });
    for (const s of sw.summary)
      rows.push({
        arm: a.arm,
        seed: a.seed,
        n: s.n,
        testR1: s.test.imageToText.r1,
        fitR1: s.fit.imageToText.r1,
        sdTestR1: s.sdTestR1,
      });
  }
  return rows;
}
