// `prh align`, `prh sweep pairs`, `prh stats gaussianity`: alignment scoring of embedding files (docs/reference.md#evaluation, #sigreg).
import { basename } from 'node:path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { MapKind } from '../align/map-kind';
import { parseRange } from '../align/rows';
import { type EmbeddingFile, readEmbeddings } from '../embeddings';
import { InputError } from '../errors';
import { parseFlags, printTable } from './output';

const num = (v: string) => Number(v);
const collect = (v: string, prev: string[] = []) => [...prev, v];
const Int = () =>
  z
    .number({ error: (iss) => (iss.code === 'invalid_type' ? 'expected a number' : undefined) })
    .int('expected a whole number');

// Image and text rows pair by index; when both files carry id sidecars they must agree row by row.
function checkIds(image: EmbeddingFile, text: EmbeddingFile): void {
  if (!image.ids || !text.ids) return;
  const i = image.ids.findIndex((id, r) => id !== text.ids![r]);
  if (i >= 0)
    throw new InputError(
      `${text.path}: row ${i} has id '${text.ids[i]}' but ${image.path} row ${i} has '${image.ids[i]}'`,
    );
}

const armNames = (files: string[]) => {
  const base = files.map((f) => basename(f).replace(/\.(npy|safetensors)(:.*)?$/, ''));
  return base.map((b, i) => (base.indexOf(b) === i && base.lastIndexOf(b) === i ? b : `${b}#${i + 1}`));
};

const ci = (x: { estimate: number; lo: number; hi: number }) =>
  `${x.estimate.toFixed(3)} [${x.lo.toFixed(3)}, ${x.hi.toFixed(3)}]`;

const AlignCli = z.object({
  image: z.string(),
  text: z.array(z.string()).min(1),
  fit: z.string(),
  test: z.string(),
  map: z.enum(MapKind),
  bootstrap: Int().positive(),
  seed: Int(),
  k: Int().positive(),
  perQuery: z.boolean().default(false),
  json: z.boolean().default(false),
});

const SweepCli = AlignCli.pick({ image: true, fit: true, test: true, map: true, seed: true, json: true }).extend({
  text: z.string(),
  counts: z.array(Int().min(2)).min(1),
  repeats: Int().positive(),
});

const GaussCli = z.object({
  file: z.string(),
  slices: Int().positive(),
  seed: Int(),
  json: z.boolean().default(false),
});

export function registerAlign(program: Command): void {
  program
    .command('align')
    .description(
      'fit the image->text map on fit pairs, score R@1/5/10 both ways and mutual k-NN on test pairs, with paired-bootstrap CIs',
    )
    .requiredOption('--image <file>', 'image embeddings [N, D] (.npy or .safetensors[:tensor])')
    .requiredOption('--text <file>', 'text embeddings [N, D] of one arm; repeat for more arms', collect)
    .option('--fit <a:b>', 'fit rows, half-open range', '0:1014')
    .option('--test <a:b>', 'test rows, half-open range', '1014:2014')
    .addOption(
      new Option('--map <kind>', 'map: procrustes, or a control (random orthonormal, shuffled pairs)')
        .choices([...MapKind])
        .default('procrustes'),
    )
    .option('--bootstrap <B>', 'paired bootstrap resamples', num, 2000)
    .option('--seed <s>', 'seed for the bootstrap and control maps', num, 0)
    .option('--k <k>', 'neighbours for mutual k-NN', num, 10)
    .option('--per-query', 'JSON: include per-query ranks and hits')
    .option('--json', 'print one JSON document')
    .action(async (raw) => {
      const o = parseFlags(AlignCli, raw);
      const { compareArms } = await import('../align'); // onnxruntime's GEMM (engine/cli/main.ts)
      const image = readEmbeddings(o.image);
      const texts = o.text.map((t) => readEmbeddings(t));
      texts.forEach((t) => checkIds(image, t));
      const names = armNames(o.text);
      const res = await compareArms({
        arms: texts.map((t, i) => ({ name: names[i], image: image.emb, text: t.emb })),
        fit: parseRange(o.fit, '--fit'),
        test: parseRange(o.test, '--test'),
        map: o.map,
        k: o.k,
        seed: o.seed,
        resamples: o.bootstrap,
      });
      const arms = res.arms.map((a, i) => {
        const { ranks, perQueryHits, ...rest } = a;
        return { file: o.text[i], ...rest, ...(o.perQuery ? { ranks, perQueryHits } : {}) };
      });
      if (o.json)
        return console.log(
          JSON.stringify({ image: o.image, fit: o.fit, test: o.test, arms, bootstrap: res.bootstrap }),
        );
      const a0 = res.arms[0];
      console.log(
        `${o.image}: fit ${o.fit} (${a0.rows.fit} pairs), test ${o.test} (${a0.rows.test} pairs), map ${o.map}, ` +
          `${a0.map.freeParameters} free parameters, ${o.bootstrap} paired resamples (seed ${o.seed}), 95% CIs`,
      );
      const b = res.bootstrap;
      printTable(
        res.arms.map((a) => ({
          arm: a.name,
          'i->t R@1': ci(b['imageToText.r1']!.scores[a.name]),
          'i->t R@5': ci(b['imageToText.r5']!.scores[a.name]),
          't->i R@1': ci(b['textToImage.r1']!.scores[a.name]),
          [`mkNN@${o.k}`]: a.mknn.degenerate ? `degenerate (${a.mknn.reason})` : ci(b.mknn!.scores[a.name]),
          'CKA (unb.)': a.cka.unbiased === null ? 'n/a' : a.cka.unbiased.toFixed(3),
          'fit resid.': a.map.fitRelativeResidual.toFixed(3),
        })),
      );
      console.log(
        `chance: R@1 ${a0.chance.r1.toPrecision(3)}, R@5 ${a0.chance.r5.toPrecision(3)}, mkNN ${a0.chance.mknn.toPrecision(3)}`,
      );
      for (const w of new Set(
        res.arms.flatMap((a) => a.warnings.map((x) => (x.startsWith('the map') ? x : `${a.name}: ${x}`))),
      ))
        console.log(`warning: ${w}`);
      if (res.arms.length > 1) {
        console.log('\ndifferences (row arm minus column arm), paired bootstrap:');
        printTable(
          b['imageToText.r1']!.differences.map((d, i) => ({
            'a - b': `${d.a} - ${d.b}`,
            'i->t R@1': ci(d),
            't->i R@1': ci(b['textToImage.r1']!.differences[i]),
            [`mkNN@${o.k}`]: b.mknn?.differences.find((x) => x.a === d.a && x.b === d.b)
              ? ci(b.mknn.differences.find((x) => x.a === d.a && x.b === d.b)!)
              : 'n/a',
          })),
        );
      }
    });

  const sweep =
    program.commands.find((c) => c.name() === 'sweep') ?? program.command('sweep').description('parameter sweeps');
  sweep
    .command('pairs')
    .description(
      'fit the map on n random fit pairs (several subsets each); score test pairs and the fit pairs themselves',
    )
    .requiredOption('--image <file>', 'image embeddings [N, D]')
    .requiredOption('--text <file>', 'text embeddings [N, D]')
    .option('--fit <a:b>', 'pool of fit rows, half-open range', '0:1014')
    .option('--test <a:b>', 'test rows, half-open range', '1014:2014')
    .option('--counts <list>', 'pair counts, comma separated', '25,50,100,200,400,800,1014')
    .option('--repeats <r>', 'random subsets per count', num, 5)
    .addOption(new Option('--map <kind>', 'map kind').choices([...MapKind]).default('procrustes'))
    .option('--seed <s>', 'seed for the subsets', num, 0)
    .option('--json', 'print one JSON document')
    .action(async (raw) => {
      const o = parseFlags(SweepCli, {
        ...raw,
        counts: String(raw.counts)
          .split(',')
          .map((s: string) => Number(s.trim())),
      });
      const { sweepPairs } = await import('../align');
      const image = readEmbeddings(o.image);
      const text = readEmbeddings(o.text);
      checkIds(image, text);
      const res = await sweepPairs({
        image: image.emb,
        text: text.emb,
        fit: parseRange(o.fit, '--fit'),
        test: parseRange(o.test, '--test'),
        counts: o.counts,
        repeats: o.repeats,
        map: o.map,
        seed: o.seed,
      });
      if (o.json) return console.log(JSON.stringify(res));
      console.log(
        `${o.text}: ${o.repeats} random subsets per count, map ${o.map} (${res.freeParameters} free parameters)`,
      );
      printTable(
        res.summary.map((s) => ({
          pairs: s.n,
          'test i->t R@1': s.test.imageToText.r1,
          sd: s.sdTestR1,
          'test t->i R@1': s.test.textToImage.r1,
          'fit i->t R@1': s.fit.imageToText.r1,
          'gap (fit - test)': s.gapR1,
        })),
      );
    });

  const stats =
    program.commands.find((c) => c.name() === 'stats') ??
    program.command('stats').description('statistics of embedding files');
  stats
    .command('gaussianity <file>')
    .description(
      'sliced Epps-Pulley statistic (LeJEPA SIGReg, N-scaled): ~1.05 for N(0, I) data, 0.402 N for collapsed data',
    )
    .option('--slices <m>', 'random unit directions', num, 1024)
    .option('--seed <s>', 'seed of the directions', num, 0)
    .option('--json', 'print one JSON document')
    .action(async (file: string, raw) => {
      const o = parseFlags(GaussCli, { ...raw, file });
      const [{ colMeans, subRow, takeRows }, { WEIGHTS, PHI, sliceDirections, slicedEppsPulley }] = await Promise.all([
        import('../linalg'),
        import('../metrics'),
      ]);
      const { emb } = readEmbeddings(o.file);
      const x = takeRows(
        emb,
        Int32Array.from({ length: emb.rows }, (_, i) => i),
      );
      const dirs = sliceDirections(emb.dim, o.slices, o.seed);
      const raw0 = await slicedEppsPulley(x, dirs);
      // also after centring and one global rescale to unit variance per coordinate: shape, not location/scale
      const xc = subRow(x, colMeans(x));
      let ss = 0;
      for (const v of xc.data) ss += v * v;
      const scale = 1 / Math.sqrt(ss / xc.data.length || 1);
      const standardized = await slicedEppsPulley({ ...xc, data: xc.data.map((v) => v * scale) }, dirs);
      const collapsedPerN = WEIGHTS.reduce((s, w, j) => s + w * (1 - PHI[j]) ** 2, 0);
      const gaussian = WEIGHTS.reduce((s, w, j) => s + w * (1 - PHI[j] ** 2), 0);
      const out = {
        file: o.file,
        n: emb.rows,
        dim: emb.dim,
        slices: o.slices,
        seed: o.seed,
        statistic: raw0.statistic,
        standardizedStatistic: standardized.statistic,
        reference: { gaussian, collapsed: collapsedPerN * emb.rows },
      };
      if (o.json) return console.log(JSON.stringify(out));
      printTable([
        { quantity: 'rows x dim', value: `${emb.rows} x ${emb.dim}` },
        { quantity: `sliced Epps-Pulley (${o.slices} slices, seed ${o.seed})`, value: raw0.statistic },
        { quantity: 'after centring + unit-variance rescale', value: standardized.statistic },
        { quantity: 'reference: N(0, I) data (any N)', value: gaussian },
        { quantity: 'reference: collapsed data (0.402 N)', value: out.reference.collapsed },
      ]);
    });
}
