// The Prop 3 grid experiment as a stored run: one world at a time, each checkpointed, so a cancelled or
// killed run resumes at the next world and still summarises all rows.
import type { TheoryProp3Config } from '../../shared/runs';
import { writeFileAtomic, writeJsonAtomic } from '../atomic';
import { Cancelled, type Job } from '../runs/job';
import { prop3World, summarizeProp3 } from './grid';
import { Prop3GridParams, type Prop3Row } from '../../shared/theory';
import { parseParams } from './params';

type Checkpoint = { nextWorld: number; rows: Prop3Row[] };

export const prop3Job: Job<TheoryProp3Config> = async (ctx) => {
  ctx.time.enter('worlds');
  const params = parseParams(Prop3GridParams, ctx.config.params, 'theory.prop3 run');
  const saved = ctx.checkpoint.load<Checkpoint>();
  const rows = saved?.rows ?? [];
  if (saved) ctx.log(`resuming at world ${saved.nextWorld + 1} of ${params.worlds}`);
  ctx.progress(saved?.nextWorld ?? 0, params.worlds, 'worlds');
  for (let w = saved?.nextWorld ?? 0; w < params.worlds; w++) {
    if (ctx.signal.aborted) throw new Cancelled('cancelled');
    const worldRows = prop3World(params, w);
    // x = row index over the whole grid, so a world recomputed after a kill replaces its earlier lines.
    worldRows.forEach((r, j) =>
      ctx.metric('prop3', w * params.grid + j, {
        world: r.world,
        rho: r.rho,
        alphaK: r.alphaK,
        beta1: r.beta1,
        r: r.r,
        rFormula: r.rFormula,
        error: r.error,
        tie: r.tie ? 1 : 0,
      }),
    );
    rows.push(...worldRows);
    ctx.checkpoint.save<Checkpoint>({ nextWorld: w + 1, rows });
    ctx.progress(w + 1, params.worlds, 'worlds');
    await new Promise((r) => setImmediate(r)); // lets a cancel (SIGTERM) and the worker's orphan check run between worlds
  }
  const summary = summarizeProp3(rows);
  const header = 'world,rho,alpha_k,beta_1,r,r_formula,error,tie';
  writeFileAtomic(
    ctx.path('artifacts', 'prop3-rows.csv'),
    [header, ...rows.map((r) => [r.world, r.rho, r.alphaK, r.beta1, r.r, r.rFormula, r.error, r.tie].join(','))].join(
      '\n',
    ) + '\n',
  );
  writeJsonAtomic(ctx.path('artifacts', 'summary.json'), summary);
  return { status: 'done', result: summary };
};
