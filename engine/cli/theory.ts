// `prh theory ...`: the finite-world theory (docs/reference.md#theory) from the command line; all compute lives in engine/theory.
import { Command, Option } from 'commander';
import { Prop3GridParams, type Prop3Summary } from '../../shared/theory';
import { explore, parseParams, prop2Demo, prop3Grid, thm1Demo, thm3Demo, type Prop3GridResult } from '../theory';
import { openService, runAndWait } from './runs';
import { EXIT, printTable } from './output';

// Numbers go to zod as numbers (NaN included), so a bad value is reported by the schema with its name.
const num = (v: string) => Number(v);
const worldOption = () => new Option('--world <kind>', 'world generator: uniform | clustered').default('uniform');
const worldFields = (o: { world: string; stickiness?: number; clusters?: number }) => ({
  worldKind: o.world,
  ...(o.stickiness === undefined ? {} : { stickiness: o.stickiness }),
  ...(o.clusters === undefined ? {} : { clusters: o.clusters }),
});
const addWorldOptions = (c: Command) =>
  c
    .addOption(worldOption())
    .option('--stickiness <p>', 'clustered worlds: probability a positive pair stays in its cluster (default 0.8)', num)
    .option('--clusters <c>', 'clustered worlds: number of clusters (default k + 1)', num);
const keyValues = (o: Record<string, unknown>) =>
  printTable(
    Object.entries(o).map(([key, value]) => ({
      key,
      value: Array.isArray(value) || (value && typeof value === 'object') ? JSON.stringify(value) : value,
    })),
  );

// The grid as an ordinary run: computed by a worker, stored, and read back from the run's metrics and result.
async function savedGrid(
  input: Record<string, unknown>,
  o: { runs?: string; json?: boolean },
  setExit: (code: number) => void,
): Promise<Prop3GridResult | null> {
  const params = parseParams(Prop3GridParams, input, 'theory prop3');
  const service = openService(o.runs);
  const { state, code } = await runAndWait(service, { kind: 'theory.prop3', version: 1, params }, Boolean(o.json));
  setExit(code);
  if (state.status !== 'done') {
    if (o.json) console.log(JSON.stringify({ id: state.id, status: state.status, error: state.error }));
    else console.error(state.error ?? state.status);
    return null;
  }
  const rows = service.store
    .metrics(state.id)
    .filter((m) => m.scope === 'prop3')
    .map(({ values: v }) => ({
      world: v.world!,
      rho: v.rho!,
      alphaK: v.alphaK!,
      beta1: v.beta1!,
      r: v.r!,
      rFormula: v.rFormula!,
      error: v.error!,
      tie: v.tie === 1,
    }));
  return { params, rows, summary: state.result as Prop3Summary };
}

export function registerTheory(program: Command, setExit: (code: number) => void): void {
  const theory = program
    .command('theory')
    .description('exact finite-world theory: Prop 1-3, Thm 1 and 3 (no training)');

  addWorldOptions(
    theory
      .command('prop3')
      .description('good vs bad views over random worlds and a rho grid: r, error = 2r, the rho > alpha_k threshold')
      .option('--worlds <n>', 'random worlds', num, 20)
      .option('--states <n>', 'states per world', num, 30)
      .option('--k <k>', 'embedding width', num, 4)
      .option('--m <m>', 'nuisance values', num, 6)
      .option('--grid <g>', 'rho grid points, linspace(0, 1, g)', num, 41)
      .option('--seed <s>', 'seed (world i uses stream i)', num, 0)
      .addOption(
        new Option('--method <m>', 'eigenvectors: kronecker (products) or joint (brute-force EVD)').default(
          'kronecker',
        ),
      )
      .option('--rows', 'human mode: also print every row')
      .option('--save', 'run it as a stored run (listed in the app, resumable) in a worker process')
      .option('--runs <dir>', 'with --save: the runs folder')
      .option('--json', 'print {params, rows, summary} as JSON'),
  ).action(async (o) => {
    const input = {
      worlds: o.worlds,
      states: o.states,
      k: o.k,
      m: o.m,
      grid: o.grid,
      seed: o.seed,
      method: o.method,
      ...worldFields(o),
    };
    const res = o.save ? await savedGrid(input, o, setExit) : prop3Grid(input);
    if (!res) return;
    if (o.json) return console.log(JSON.stringify(res));
    if (o.rows) printTable(res.rows);
    const s = res.summary;
    const p = res.params;
    console.log(
      `${p.worlds} ${p.worldKind} worlds x ${p.grid} rho, n = ${p.states}, k = ${p.k}, m = ${p.m}, seed ${p.seed} (${p.method})`,
    );
    printTable([
      { quantity: 'rows', value: s.rows },
      { quantity: 'mean alpha_k', value: s.meanAlphaK },
      { quantity: 'good views (rho = 0): max |error|', value: s.goodMaxAbsError },
      { quantity: 'below threshold (rho <= alpha_k, rho < 1)', value: s.below },
      { quantity: '  max |error|', value: s.belowMaxAbsError },
      { quantity: 'above threshold (rho > alpha_k, rho < 1)', value: s.above },
      { quantity: '  min r', value: s.aboveMinR },
      { quantity: '  max |error - 2r|', value: s.aboveMaxAbsErrMinus2r },
      { quantity: 'r != min(m-1, #{alpha_i < rho})', value: s.rFormulaMismatches },
      { quantity: 'rows where a tie was broken', value: s.ties },
      { quantity: 'rho = 1: r', value: [...new Set(s.rhoOne.r)].join(', ') },
      { quantity: 'rho = 1: error', value: [...new Set(s.rhoOne.error.map((e) => e.toPrecision(6)))].join(', ') },
    ]);
  });

  addWorldOptions(
    theory
      .command('thm1')
      .description('two injective renderings with the same positives agree up to one rotation iff mu_k > mu_{k+1}')
      .option('--n <n>', 'states', num, 12)
      .option('--k <k>', 'embedding width', num, 3)
      .option('--observations-a <n>', "modality A's observation set size (default n + 8)", num)
      .option('--observations-b <n>', "modality B's observation set size (default n + 12)", num)
      .option('--seed <s>', 'seed', num, 0)
      .option('--json', 'print the demo as JSON'),
  ).action((o) => {
    const res = thm1Demo({
      n: o.n,
      k: o.k,
      observationsA: o.observationsA,
      observationsB: o.observationsB,
      seed: o.seed,
      ...worldFields(o),
    });
    if (o.json) return console.log(JSON.stringify(res));
    console.log(`n = ${res.n}, k = ${res.k}, observations ${res.observationsA} (A) and ${res.observationsB} (B)`);
    const { rotation: _r1, ...gap } = res.gap;
    const { rotation: _r2, ...noGap } = res.noGap;
    printTable(
      [
        { case: 'gap', ...gap },
        { case: 'no gap', ...noGap },
      ],
      ['case', ...Object.keys(noGap)],
    );
  });

  addWorldOptions(
    theory
      .command('prop2')
      .description('moments cannot identify the rotation; k pairs can, k - 1 pairs cannot')
      .option('--n <n>', 'states', num, 12)
      .option('--k <k>', 'embedding width', num, 3)
      .option('--rotations <r>', 'random rotations checked', num, 8)
      .option('--seed <s>', 'seed', num, 0)
      .option('--json', 'print the demo as JSON'),
  ).action((o) => {
    const res = prop2Demo({ n: o.n, k: o.k, rotations: o.rotations, seed: o.seed, ...worldFields(o) });
    if (o.json) return console.log(JSON.stringify(res));
    keyValues(res);
  });

  addWorldOptions(
    theory
      .command('thm3')
      .description(
        'the floor E >= 2k - 2 sum sqrt(lambda_i(E[g g^T])) >= 2k (1 - sqrt(eta)) on embeddings with nuisance',
      )
      .option('--n <n>', 'states', num, 12)
      .option('--k <k>', 'embedding width', num, 3)
      .option('--m <m>', 'nuisance values', num, 4)
      .option('--embeddings <e>', 'random whitened embeddings', num, 20)
      .option('--seed <s>', 'seed', num, 0)
      .option('--json', 'print the cases as JSON'),
  ).action((o) => {
    const res = thm3Demo({ n: o.n, k: o.k, m: o.m, embeddings: o.embeddings, seed: o.seed, ...worldFields(o) });
    if (!res.holds) setExit(EXIT.failed);
    if (o.json) return console.log(JSON.stringify(res));
    printTable(res.cases);
    console.log(`floor holds in every case: ${res.holds}`);
  });

  addWorldOptions(
    theory
      .command('explore')
      .description('one world: spectrum, Prop 1 uniqueness, and r / error over rho (what the Theory screen shows)')
      .option('--n <n>', 'states', num, 30)
      .option('--k <k>', 'embedding width', num, 4)
      .option('--m <m>', 'nuisance values', num, 6)
      .option('--rho <rho>', 'corruption keeps the nuisance with probability rho', num, 0.5)
      .option('--grid <g>', 'rho grid points', num, 41)
      .option('--seed <s>', 'seed', num, 0)
      .option('--json', 'print the result as JSON'),
  ).action((o) => {
    const res = explore({ n: o.n, k: o.k, m: o.m, rho: o.rho, grid: o.grid, seed: o.seed, ...worldFields(o) });
    if (o.json) return console.log(JSON.stringify(res));
    console.log(`alpha: ${res.alpha.map((a) => a.toFixed(4)).join(' ')}`);
    keyValues({
      alphaK: res.threshold.alphaK,
      rho: res.threshold.rho,
      bad: res.threshold.bad,
      r: res.r,
      rFormula: res.rFormula,
      error: res.error,
      tie: res.tie,
      ...res.prop1,
    });
    printTable(
      res.curve.rho.map((rho, i) => ({
        rho,
        r: res.curve.r[i],
        rFormula: res.curve.rFormula[i],
        error: res.curve.error[i],
      })),
    );
  });
}
