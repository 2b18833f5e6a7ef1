// Messages that say what went wrong and what to do: an arm's cause in the experiment's error, zod issues in words
// through the API, option names in flag errors, a fixed-batch model that just works, a NaN model that stops at once.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { RunConfig } from '../../shared/runs';
import { fileSettings, Service } from '../../engine/api';
import { generateWorld } from '../../engine/data';
import { readEmbeddings } from '../../engine/embeddings';
import {
  buildVitOnnx,
  decodeModel,
  ElemType,
  GraphBuilder,
  randomVitWeights,
  valueInfo,
} from '../../engine/models/onnx';
import { workerCommand } from '../../engine/worker';
import { runToEnd as runToEndIn } from './run-to-end';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-messages-'));
const world = join(home, 'world');
const cfg = { imageSize: 28, patchSize: 14, hidden: 16, depth: 1, heads: 2, mlp: 32 };
const vit = join(home, 'vit.onnx');
const fixed = join(home, 'vit-batch1.onnx');
const nan = join(home, 'vit-nan.onnx');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, ...args], { env: { ...process.env, PRH_HOME: home }, encoding: 'utf8' });

beforeAll(() => {
  generateWorld(world, { seed: 5, splits: { train: 48, val: 12, test: 12 }, imageSize: 32 });
  const weights = randomVitWeights(cfg, 0);
  writeFileSync(vit, buildVitOnnx(cfg, weights));
  // The same model exported for one image per call: the input's batch axis is the number 1.
  const m = decodeModel(readFileSync(vit), vit);
  m.graph!.input![0].type!.tensorType!.shape!.dim![0] = { dimValue: 1 };
  writeFileSync(fixed, onnxProto.onnx.ModelProto.encode(m).finish());
  // A model whose output is NaN for every image (one NaN weight in the patch projection).
  const broken = {
    ...weights,
    'embeddings.patch_embeddings.projection.weight': weights['embeddings.patch_embeddings.projection.weight'].map(
      (v, i) => (i === 0 ? NaN : v),
    ),
  };
  writeFileSync(nan, buildVitOnnx(cfg, broken));
});

const runToEnd = (config: unknown) => runToEndIn(join(home, 'runs'), config);
const experiment = (name: string, model: string, train: Record<string, unknown> = {}) => ({
  kind: 'experiment',
  version: 1,
  name,
  data: world,
  image: { model },
  arms: ['good', 'ntp'],
  seeds: [0],
  train: { epochs: 1, batch: 16, slices: 32, backend: 'wasm', ...train },
  eval: { bootstrap: 100, sweepCounts: [4], sweepRepeats: 1, k: 3 },
});

describe('experiment failures', () => {
  it('carry each arm\'s cause, not "worker exited with code 1:"', async () => {
    const { state } = await runToEnd(experiment('batch too big', vit, { batch: 64 }));
    expect(state.status).toBe('failed');
    const first = state.error!.split('\n')[0];
    expect(first).toMatch(
      /^arm\(s\) did not finish: .*: failed \(.*48 training photos is fewer than one batch of 64\)/,
    );
    expect(first).not.toMatch(/worker exited with code/);
  }, 120_000);

  it('stop at embedding time when the image model outputs NaN, before any arm trains', async () => {
    const { store, id, state } = await runToEnd(experiment('nan model', nan));
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(
      new RegExp(`^${nan}: the model's output is NaN or infinite for \\d+ of \\d+ images in this batch \\(`),
    );
    expect(existsSync(join(store.dir(id), 'arms'))).toBe(false);
  }, 120_000);
});

describe('prh embed', () => {
  const embed = (model: string, out: string, ...more: string[]) =>
    cli(
      'embed',
      '--model',
      model,
      '--data',
      world,
      '--split',
      'test',
      '--out',
      join(home, out),
      '--no-cache-dir',
      '--threads',
      '1',
      ...more,
    );

  it('exits 2 naming the images when the model outputs NaN, and writes no .npy', () => {
    const r = embed(nan, 'nan.npy', '--batch', '4');
    expect(r.status).toBe(2); // before: 0 with an all-NaN .npy
    expect(r.stderr).toMatch(
      /^error: .*vit-nan\.onnx: the model's output is NaN or infinite for 4 of 4 images in this batch \(w\d+, w\d+, w\d+, w\d+\); no embeddings were written/,
    );
    expect(existsSync(join(home, 'nan.npy'))).toBe(false);
  }, 60_000);

  it('runs a model exported with a fixed batch of 1, one image per call, with the same embeddings', () => {
    const a = embed(vit, 'dynamic.npy', '--batch', '5');
    const b = embed(fixed, 'fixed.npy', '--batch', '5');
    expect(a.status).toBe(0);
    expect(b.stderr).toContain('the model takes exactly 1 image(s) per call; embedding 1 at a time'); // before: exit 2, a cut-off ORT message
    expect(b.status).toBe(0);
    const [x, y] = [readEmbeddings(join(home, 'dynamic.npy')), readEmbeddings(join(home, 'fixed.npy'))];
    expect(y.ids).toEqual(x.ids);
    expect(y.ids).toHaveLength(12);
    for (let i = 0; i < x.emb.data.length; i++) expect(y.emb.data[i]).toBeCloseTo(x.emb.data[i], 4);
  }, 60_000);

  it('a model that only runs one image at a time without saying so: the whole ORT message, and that --batch 1 works', () => {
    // Its input batch axis is symbolic, but a Reshape inside fixes it to 1.
    const g = new GraphBuilder();
    g.op('Reshape', ['x', g.ints([1, 3 * 28 * 28])], {}, 'y');
    const one = join(home, 'hidden-batch1.onnx');
    writeFileSync(
      one,
      g.encode(
        [valueInfo('x', ElemType.FLOAT, ['n', 3, 28, 28])],
        [valueInfo('y', ElemType.FLOAT, [1, 3 * 28 * 28])],
        'one',
      ),
    );
    const r = embed(one, 'hidden.npy', '--batch', '4');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error: .*hidden-batch1\.onnx: inference failed for input \[4, 3, 28, 28\]: .*requested shape:\{1,2352\}; if the model takes one image per call, --batch 1 runs it$/m,
    );
    expect(embed(one, 'hidden.npy', '--batch', '1').status).toBe(0);
  }, 60_000);
});

describe('flag and API errors in words', () => {
  it("names --lamb-eff and λ when both λ and λ_eff are given: the schema's one rule, for both commands", () => {
    const rule = 'λ_eff given with λ: give one, not both (λ_eff = λ·N·world_size)';
    for (const [cmd, flag] of [
      [['train', '--arm', 'good', '--out', join(home, 'x')], '--lamb-eff'],
      [['experiment'], '--lamb-eff 3'], // an experiment's flags name their value as well
    ] as const) {
      const r = cli(...cmd, '--data', world, '--lamb', '0.1', '--lamb-eff', '3');
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toBe(`error: ${flag}: ${rule}`); // before: two rules with two messages
    }
  });

  it('gives the allowed range for --k 0, and the flag name', () => {
    const r = cli('align', '--image', 'a.npy', '--text', 'b.npy', '--k', '0');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('error: --k: must be more than 0'); // before: "k: --k must be a number"
    expect(cli('theory', 'prop3', '--k', '0').stderr.trim()).toBe('error: prop3 grid: k: must be at least 1');
  });

  it('turns a schema failure inside an API call into "field: problem", not zod\'s JSON', async () => {
    const userData = join(home, 'user');
    mkdirSync(userData, { recursive: true });
    const service = new Service({
      runsDir: join(home, 'api-runs'),
      userData,
      settings: fileSettings(userData),
      transport: 'ws',
      worker: workerCommand(),
    });
    onTestFinished(() => service.close()); // its watch timer must not outlive the test's folder
    const { id } = service.store.create(RunConfig.parse({ kind: 'theory.prop3', version: 1, params: { worlds: 1 } }));
    const file = join(service.store.dir(id), 'status.json');
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), status: 'exploded', attempts: 'two' }),
    );
    const err = await service.dispatch('getRun', { id }).catch((e: Error) => e);
    // The file and its problems in words (the store reads status.json through readJson), not zod's JSON.
    expect((err as Error).message).toBe(
      `${file}: not a run status: status: must be one of "queued", "running", "done", "failed", "cancelled", "interrupted", "diverged", "unreadable"; attempts: expected a number`,
    );
  });
});
