// Short runs of every arm on a tiny caption world: loss falls, checkpoints and embeddings appear, resume after a
// kill reproduces the uninterrupted run, NaN stops the run as diverged.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARMS, TrainConfig, resolveLambda } from '../../shared/train';
import { readEmbeddings, readNpyTensor } from '../../engine/embeddings';
import { selectCheckpoint, train, type StepValues } from '../../engine/train';
import { writeTinyWorld } from './tiny-world';

const root = mkdtempSync(join(tmpdir(), 'prh-train-'));
const data = writeTinyWorld(join(root, 'world'), { train: 256, val: 48, test: 40 });
const cfg = (over: Partial<TrainConfig>) =>
  TrainConfig.parse({
    kind: 'train',
    version: 1,
    data,
    arm: 'good',
    epochs: 2,
    batch: 32,
    slices: 256,
    warmupSteps: 2,
    lr: 3e-3,
    vocabSize: 200,
    metricEvery: 1,
    backend: 'wasm',
    ...over,
  });

describe('training loop', () => {
  for (const arm of ARMS)
    it(`${arm}: loss falls over 16 steps; per-epoch checkpoint, val loss and val/test embeddings are written`, async () => {
      const out = join(root, `run-${arm}`);
      const steps: StepValues[] = [];
      const seen: number[] = [];
      const res = await train(cfg({ arm }), out, {
        onStep: (_s, v) => steps.push(v),
        onEpoch: (e, emb) => void seen.push(e, emb.val!.last.rows),
      });
      expect(res.status).toBe('done');
      const first = steps.slice(0, 3).reduce((a, v) => a + v.loss, 0) / 3,
        last = steps.slice(-3).reduce((a, v) => a + v.loss, 0) / 3;
      expect(last).toBeLessThan(first * 0.9);
      expect(seen).toEqual([1, 48, 2, 48]);
      const emb = readEmbeddings(join(out, 'embeddings', 'epoch-2', 'test.npy'));
      expect([emb.emb.rows, emb.emb.dim, emb.ids?.[0]]).toEqual([40, 64, 'test-0']);
      expect(readNpyTensor(join(out, 'embeddings', 'epoch-2', 'val.layers.npy')).shape).toEqual([3, 48, 64]);
      expect(existsSync(join(out, 'checkpoints', 'epoch-2', 'optimizer.safetensors'))).toBe(true);
      expect(existsSync(join(out, 'checkpoints', 'epoch-1', 'optimizer.safetensors'))).toBe(false);
      expect(res.epochs.every((e) => e.valLoss !== null && Number.isFinite(e.valLoss))).toBe(true);
      expect(selectCheckpoint(out, 'val-loss')!.epoch).toBe(res.epochs[0].valLoss! < res.epochs[1].valLoss! ? 1 : 2);
    });

  it('resume after a kill at an epoch boundary gives the same next epoch', async () => {
    const full = join(root, 'full'),
      cut = join(root, 'cut');
    await train(cfg({ arm: 'bad' }), full);
    const stop = new AbortController();
    const part = await train(cfg({ arm: 'bad' }), cut, { signal: stop.signal, onEpoch: () => stop.abort() });
    expect(part.status).toBe('cancelled');
    const resumed = await train(cfg({ arm: 'bad' }), cut, {}, true);
    expect(resumed.epochs.map((e) => e.epoch)).toEqual([2]);
    const a = readFileSync(join(full, 'checkpoints', 'epoch-2', 'weights.safetensors'));
    const b = readFileSync(join(cut, 'checkpoints', 'epoch-2', 'weights.safetensors'));
    expect(Buffer.compare(a, b)).toBe(0);
    expect(
      Buffer.compare(
        readFileSync(join(full, 'embeddings', 'epoch-2', 'val.npy')),
        readFileSync(join(cut, 'embeddings', 'epoch-2', 'val.npy')),
      ),
    ).toBe(0);
  });

  it('select val-pairs picks the epoch its hook scored best (kept in the checkpoint); it needs an experiment', async () => {
    const out = join(root, 'val-pairs');
    const scores = [0.3, 0.5, 0.4]; // epoch 2 best
    const evaluation = { images: { val: 'v.npy', test: 't.npy' }, k: 10 }; // the hook scores; the schema asks that it is there
    const res = await train(cfg({ arm: 'ntp', epochs: 3, select: 'val-pairs', evaluation }), out, {
      valPairs: async () => scores.shift()!,
    });
    expect(res.status === 'done' && res.selected).toEqual({ epoch: 2, valLoss: res.epochs[1].valLoss, valPairs: 0.5 });
    expect(selectCheckpoint(out, 'last')!.epoch).toBe(3);
    const bare = join(root, 'val-pairs-bare');
    await train(cfg({ arm: 'ntp', epochs: 1 }), bare); // no hook: nothing to pick by
    expect(() => selectCheckpoint(bare, 'val-pairs')).toThrow(/no checkpoint has a fit-pair score/);
    const plain = TrainConfig.safeParse({ kind: 'train', version: 1, data, arm: 'good', select: 'val-pairs' });
    expect(plain.success ? '' : plain.error.issues[0].message).toMatch(
      /only an experiment gives its arms: use last or val-loss/,
    );
  });

  it('a NaN loss stops the run as diverged and keeps the last good checkpoint', async () => {
    const out = join(root, 'nan');
    const res = await train(cfg({ arm: 'good', lr: 1e30, warmupSteps: 0, epochs: 3 }), out);
    expect(res.status).toBe('diverged');
    expect(existsSync(join(out, 'checkpoints', `epoch-${res.epochs.length + 1}`))).toBe(false);
  });

  it('λ_eff = λ·N·world_size, and giving λ_eff recovers λ', () => {
    const a = resolveLambda(cfg({ lamb: 0.02 }));
    expect(a.lambEff).toBeCloseTo(0.02 * 8 * 32, 10);
    expect(resolveLambda(cfg({ lambEff: a.lambEff, batch: 64 })).lamb).toBeCloseTo(0.01, 10);
    expect(resolveLambda(cfg({ loss: 'paper', lamb: 0.05 })).sigregN).toBe(32);
  });
});
