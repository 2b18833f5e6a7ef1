// The New experiment form without a browser: the config it builds and what blocks it, and the λ read-out, which must
// agree with what training resolves from the same settings.
import { describe, expect, it } from 'vitest';
import { nextTick, ref } from 'vue';
import type { DatasetInfo } from '../../shared/api';
import { ExperimentConfig, WORLD_ARM_LR, armConfig } from '../../shared/experiment';
import { TrainConfig, resolveDraftLambda, resolveLambda } from '../../shared/train';
import { fillWorldRates, useExperimentForm } from '../../renderer/src/composables/experiment-form';

describe('resolveDraftLambda (the New experiment read-out)', () => {
  it('agrees with resolveLambda on the parsed train config, for both losses and both ways of giving the weight', () => {
    for (const loss of ['sp', 'paper'] as const)
      for (const batch of [2, 16, 64, 512])
        for (const given of [{ lamb: 0.02 }, { lamb: 0.5 }, { lambEff: 10.24 }, { lambEff: 3 }, {}]) {
          const trained = resolveLambda(
            TrainConfig.parse({ kind: 'train', version: 1, data: 'd', arm: 'good', loss, batch, ...given }),
          );
          const draft = resolveDraftLambda({ loss, batch, ...given });
          expect(draft).toEqual({ ...trained, views: 8 });
        }
  });

  it('gives the read-out of the defaults: λ_eff = 0.02·8·64·1 = 10.24 (sp), 0.02·64·1 = 1.28 (paper)', () => {
    expect(resolveDraftLambda({ loss: 'sp', batch: 64, lamb: 0.02 })).toMatchObject({
      sigregN: 512,
      worldSize: 1,
      views: 8,
    });
    expect(resolveDraftLambda({ loss: 'sp', batch: 64, lamb: 0.02 }).lambEff).toBeCloseTo(10.24, 12);
    expect(resolveDraftLambda({ loss: 'paper', batch: 64, lamb: 0.02 }).lambEff).toBeCloseTo(1.28, 12);
    expect(resolveDraftLambda({ loss: 'sp', batch: 16, lambEff: 2.56 }).lamb).toBeCloseTo(0.02, 12);
  });
});

describe('useExperimentForm', () => {
  const world: DatasetInfo = {
    path: '/w/world',
    name: 'world',
    source: 'world',
    exists: true,
    counts: { train: 5, val: 2, test: 2 },
    params: {},
  };

  it('builds a config the backend schema accepts, whose arms train with the λ the form shows', () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    expect(f.form.data).toBe('/w/world');
    expect(f.issues.value).toEqual([]);
    expect(f.ready.value).toBe(true);
    const parsed = ExperimentConfig.parse(f.config.value);
    const arm = TrainConfig.parse(armConfig(parsed, 'good', 0));
    expect(resolveLambda(arm).lambEff).toBeCloseTo(
      resolveDraftLambda({ loss: f.form.loss, batch: f.form.batch, lamb: f.form.lamb }).lambEff,
      12,
    );
  });

  it("starts from the schemas' defaults: untouched, it parses to the config a file naming only its data gets", () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    const bare = ExperimentConfig.parse({ kind: 'experiment', version: 1, data: '/w/world' });
    expect(ExperimentConfig.parse(f.config.value)).toEqual({
      ...bare,
      arms: ['good', 'bad', 'ntp'], // the form ticks the three text arms; a file names its own
      train: { ...bare.train, lamb: 0.02 }, // the form always states its weight
    });
    expect(f.form.lambEff).toBeCloseTo(10.24, 12); // λ_eff of the defaults: 0.02 · 8 views · 64 photos · 1
  });

  it('keeps a typed dataset path that is not a lab dataset when the list (re)loads; fills only an empty choice', () => {
    const f = useExperimentForm(ref([world]));
    f.form.data = '/data/flickr8k-1k';
    f.pickListed();
    expect(f.form.data).toBe('/data/flickr8k-1k');
    f.form.data = '';
    f.pickListed();
    expect(f.form.data).toBe('/w/world');
  });

  it('carries the image side (tensor, pooling), the image folder and the fit / test pair counts into the config and each arm', () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    Object.assign(f.form, {
      modelKind: 'onnx',
      model: '/m/mobilenetv2-12-int8.onnx',
      imageOutput: '464_quantized',
      imagePool: 'none',
      images: '/photos',
      fitPairs: 300,
      testPairs: 200,
    });
    const parsed = ExperimentConfig.parse(f.config.value);
    expect(parsed.image).toEqual({
      model: '/m/mobilenetv2-12-int8.onnx',
      output: '464_quantized',
      pool: 'none',
      device: 'auto',
    });
    expect(parsed).toMatchObject({ images: '/photos', eval: { fitPairs: 300, testPairs: 200 } });
    const arm = TrainConfig.parse(armConfig(parsed, 'ntp', 1));
    expect(arm).toMatchObject({ data: '/w/world', images: '/photos', split: { seed: 0, val: 300, test: 200 } });
    f.form.fitPairs = 1;
    expect(f.issueFor('eval.fitPairs')).toMatch(/^fit pairs: /);
  });

  it('carries the chosen training backend and image device into the config, and leaves them out at auto', () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    expect(f.config.value.train).not.toHaveProperty('backend');
    expect(f.config.value.image).not.toHaveProperty('device');
    f.form.backend = 'webgpu';
    f.form.imageDevice = 'webgpu';
    const parsed = ExperimentConfig.parse(f.config.value);
    expect(parsed.image).toEqual({ model: 'world', device: 'webgpu' });
    expect(TrainConfig.parse(armConfig(parsed, 'good', 0)).backend).toBe('webgpu');
  });

  it('carries the checkpoint policy to every arm, which (as an experiment arm) may select by its fit pairs', () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    expect(f.config.value.train).not.toHaveProperty('select');
    f.form.select = 'val-pairs';
    const parsed = ExperimentConfig.parse(f.config.value);
    const evaluation = { images: { val: 'image/val.npy', test: 'image/test.npy' }, k: 10 }; // what the experiment gives each arm
    for (const arm of parsed.arms)
      expect(TrainConfig.parse(armConfig(parsed, arm, 0, evaluation)).select).toBe('val-pairs');
  });

  it("trains each checked arm at its own rate where the form gives one, else at the shared rate; the world-tuned rates are prh demo's", async () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    expect(f.config.value.armLr).toBeUndefined();
    f.form.lr = 3e-3;
    f.form.armLr.bad = 5e-4;
    f.form.armLr['pair-ntp'] = 9e-3; // not a checked arm: stays in the form, out of the config
    let parsed = ExperimentConfig.parse(f.config.value);
    expect(parsed.armLr).toEqual({ bad: 5e-4 });
    expect(['good', 'bad', 'ntp'].map((a) => TrainConfig.parse(armConfig(parsed, a as 'good', 0)).lr)).toEqual([
      3e-3, 5e-4, 3e-3,
    ]);
    fillWorldRates(f.form);
    parsed = ExperimentConfig.parse(f.config.value);
    expect(parsed.armLr).toEqual(WORLD_ARM_LR);
    expect(['good', 'bad', 'ntp'].map((a) => TrainConfig.parse(armConfig(parsed, a as 'good', 0)).lr)).toEqual([
      4e-3, 1e-3, 1e-3,
    ]);
    f.form.armLr.ntp = -1;
    await nextTick();
    expect(f.issueFor('armLr.ntp')).toBe('ntp learning rate: must be more than 0');
    expect(f.ready.value).toBe(false);
  });

  it('names the offending path of a bad field and blocks a dataset that is not generated', async () => {
    const f = useExperimentForm(ref([{ ...world, exists: false, counts: null }]));
    f.pickListed();
    expect(f.dataIssue.value).toBe('this dataset is not generated yet');
    f.form.seeds = '1, 2, x';
    await nextTick();
    expect(f.issueFor('seeds')).toBe('seeds: 1, 2, x: x is not a whole number (0 or more)');
    expect(f.ready.value).toBe(false);
    f.form.seeds = '0';
    f.form.epochs = 0;
    f.form.batch = '' as unknown as number; // a cleared number field
    await nextTick();
    expect(f.issueFor('seeds')).toBe('');
    expect(f.issueFor('train.epochs')).toBe('epochs: must be at least 1');
    expect(f.issueFor('train.batch')).toBe('batch: expected a number');
    expect(JSON.stringify(f.issues.value)).not.toMatch(/"code"|invalid_type/); // words, not zod's JSON
  });
});

describe('the 2x2 option (useExperimentForm imageViews)', () => {
  const world: DatasetInfo = {
    path: '/w/world',
    name: 'world',
    source: 'world',
    exists: true,
    counts: { train: 5, val: 2, test: 2 },
    params: {},
  };
  const photos: DatasetInfo = {
    path: '/d/flickr8k',
    name: 'flickr8k',
    source: 'flickr8k',
    exists: true,
    counts: { train: 5, val: 2, test: 2 },
    params: {},
  };

  it('adds the image arms to the config, asks to drop NTP, and trains its own encoders whatever the ONNX choice', async () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    expect(f.config.value).not.toHaveProperty('imageViews');
    Object.assign(f.form, {
      imageViews: true,
      imageSteps: 120,
      imageRenders: 6,
      modelKind: 'onnx',
      model: '/m/other.onnx',
    });
    await nextTick();
    expect(f.issueFor('arms')).toMatch(/^arms: the 2x2 experiment \(image views\) compares JEPA text arms only/);
    expect(f.ready.value).toBe(false);
    f.form.arms = ['good', 'bad'];
    await nextTick();
    expect(f.issues.value).toEqual([]);
    const parsed = ExperimentConfig.parse(f.config.value);
    expect(parsed.image.model).toBe('world');
    expect(parsed.imageViews).toMatchObject({ arms: ['good', 'bad'], steps: 120, renders: 6 });
  });

  it('blocks real photos, saying why', () => {
    const f = useExperimentForm(ref([photos]));
    f.pickListed();
    expect(f.dataIssue.value).toBe('');
    f.form.imageViews = true;
    expect(f.dataIssue.value).toBe(
      'the 2x2 (image views) renders the scenes again: it needs a procedural world, not flickr8k photos',
    );
  });
});

describe('where the arms run (useExperimentForm executor)', () => {
  const world: DatasetInfo = {
    path: '/w/world',
    name: 'world',
    source: 'world',
    exists: true,
    counts: { train: 5, val: 2, test: 2 },
    params: {},
  };

  it('leaves the executor to the settings by default, and sends the Slurm overrides that are set', async () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    expect(f.config.value.executor).toBeUndefined();
    f.form.executor = 'local';
    expect(f.config.value.executor).toEqual({ kind: 'local' });
    Object.assign(f.form, { executor: 'slurm', partition: ' gpu ', time: '', gpus: 2 });
    expect(f.config.value.executor).toEqual({ kind: 'slurm', partition: 'gpu', gpus: 2 });
    expect(ExperimentConfig.parse(f.config.value).executor).toEqual({ kind: 'slurm', partition: 'gpu', gpus: 2 });
  });

  it('names a bad Slurm field next to it, in words', async () => {
    const f = useExperimentForm(ref([world]));
    f.pickListed();
    Object.assign(f.form, { executor: 'slurm', partition: 'gpu nodes', time: 'soon' });
    await nextTick();
    expect(f.ready.value).toBe(false);
    expect(f.issueFor('executor.partition')).toMatch(/^partition: letters, digits and _ \. \+ - only/);
    expect(f.issueFor('executor.time')).toMatch(/^time limit: a Slurm time limit: minutes, H:MM:SS or D-HH:MM:SS/);
  });
});
