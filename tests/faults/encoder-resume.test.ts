// kill -9 a `prh world build-encoder` mid-training, twice, and start it again: it goes on from its newest step
// checkpoint to the bytes of an unbroken build (in this process), its manifest's loss curve whole and its resumptions
// recorded; then the checkpoints are gone. The same for an ensemble, whose members checkpoint apart. A checkpoint
// folder of another recipe is refused, not resumed or overwritten.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorldEncoderManifest, buildWorldEncoder, type WorldEncoderRecipe } from '../../engine/image';

const home = mkdtempSync(join(tmpdir(), 'prh-encoder-kill-'));
const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The kinds of state a checkpoint must carry: a conv stem, object renders with InfoNCE alone for the first steps, a read-out.
const recipe: WorldEncoderRecipe = {
  world: { seed: 1, scenes: 16, imageSize: 32, objectRenders: 3, objectKeep: 'shape' },
  jepa: {
    vit: { imageSize: 32, patchSize: 8, hidden: 16, depth: 1, heads: 2, mlp: 32, stem: [4, 8, 8] },
    posStd: 0.5,
    projector: { dims: [32, 16], norm: [true, false], act: 'gelu' },
    views: { scale: [0.6, 1], ratio: [3 / 4, 4 / 3], flip: 0, brightness: 0.2, contrast: 0.2, noise: 0.04 },
    V: 3,
    batch: 8,
    steps: 40,
    lr: 5e-3,
    warmupSteps: 1,
    minLr: 0.1,
    weightDecay: 0.05,
    lamb: 0.4,
    slices: 32,
    clip: 1,
    seed: 5,
    objects: { views: 2, weight: 0.5, loss: 'infonce', aloneSteps: 10 },
  },
  pooler: { grid: 1, dims: 8, scenes: 16 },
};

// The newest step checkpoint in dir (a build's folder, or one member's of an ensemble), or 0.
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  return Math.max(0, ...readdirSync(dir).map((f) => Number(/^step-(\d+)$/.exec(f)?.[1] ?? 0)));
}

const build = (name: string, r: WorldEncoderRecipe, ...flags: string[]) => {
  writeFileSync(join(home, `${name}.recipe.json`), JSON.stringify(r));
  // its own process group: kill -9 takes an ensemble's member processes with it, as closing a terminal does
  return spawn(
    process.execPath,
    [
      prh,
      'world',
      'build-encoder',
      '--recipe',
      join(home, `${name}.recipe.json`),
      '--out',
      join(home, `${name}.onnx`),
      '--no-probe',
      '--checkpoint-every',
      '3',
      ...flags,
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
};
const exited = (p: ChildProcess) =>
  new Promise<number | null>((r) =>
    p.exitCode !== null || p.signalCode !== null ? r(p.exitCode) : p.once('exit', (code) => r(code)),
  );
const stderrOf = (p: ChildProcess) => {
  let s = '';
  p.stderr!.on('data', (d) => (s += d));
  return () => s;
};

// Starts the build, kills it (the whole group) once a checkpoint past `after` is written (an ensemble: by every member,
// whose processes keep their own pace); the step every folder had passed when it was killed.
async function killAfter(name: string, r: WorldEncoderRecipe, after: number): Promise<number> {
  const p = build(name, r);
  const dir = join(home, `${name}.checkpoints`);
  const folders = r.members?.map((seed) => join(dir, `member-${seed}`)) ?? [dir];
  const passed = () => Math.min(...folders.map(newest));
  for (let i = 0; i < 6000 && passed() <= after; i++) {
    if (p.exitCode !== null) throw new Error(`the build ended (${p.exitCode}) before a checkpoint past step ${after}`);
    await sleep(10);
  }
  process.kill(-p.pid!, 'SIGKILL');
  await exited(p);
  await sleep(200); // the group's members gone too
  expect(existsSync(join(home, `${name}.onnx`))).toBe(false);
  return passed();
}

async function finish(name: string, r: WorldEncoderRecipe): Promise<{ manifest: WorldEncoderManifest; log: string }> {
  const p = build(name, r);
  const log = stderrOf(p);
  expect(await exited(p), log()).toBe(0);
  return {
    manifest: WorldEncoderManifest.parse(JSON.parse(readFileSync(join(home, `${name}.json`), 'utf8'))),
    log: log(),
  };
}

describe('a killed world-encoder build', () => {
  it('goes on from its newest checkpoint to the bytes of an unbroken build, and the checkpoints go once the model is written', async () => {
    const unbroken = await buildWorldEncoder(recipe);
    const first = await killAfter('one', recipe, 5);
    const second = await killAfter('one', recipe, first + 5);
    expect(second).toBeGreaterThan(first);
    const { manifest, log } = await finish('one', recipe);
    expect(manifest.sha256).toBe(unbroken.sha256);
    expect(manifest.loss).toEqual(unbroken.manifest.loss); // every step's loss in the curve, once
    expect(manifest.build.resumed).toEqual([first, second]);
    expect(log).toMatch(new RegExp(`resumed from .*one\\.checkpoints at step ${second}/40`));
    expect(existsSync(join(home, 'one.checkpoints'))).toBe(false);
    // another recipe at the same --out finds the first's checkpoints: refused with the folder named, the folder kept
    await killAfter('two', recipe, 2);
    const other = build('two', { ...recipe, jepa: { ...recipe.jepa, lr: 4e-3 } });
    const err = stderrOf(other);
    expect(await exited(other)).not.toBe(0);
    expect(err()).toMatch(/two\.checkpoints: holds the checkpoints of another build \(step \d+\); remove that folder/);
    expect(newest(join(home, 'two.checkpoints'))).toBeGreaterThan(2);
  }, 300_000);

  it('goes on from the checkpoint before a torn newest one, to the same bytes; with none readable it says which folder to remove', async () => {
    const unbroken = await buildWorldEncoder(recipe);
    const at = await killAfter('torn', recipe, 5);
    const dir = join(home, 'torn.checkpoints');
    const kept = readdirSync(dir)
      .filter((f) => f.startsWith('step-'))
      .sort((a, b) => Number(b.slice(5)) - Number(a.slice(5)));
    expect(kept).toEqual([`step-${at}`, `step-${at - 3}`]); // the newest two
    const tear = (step: string) => {
      const f = join(dir, step, 'weights.safetensors');
      writeFileSync(f, readFileSync(f).subarray(0, 100)); // a lost write: the file cut short
    };
    tear(kept[0]);
    const { manifest, log } = await finish('torn', recipe);
    expect(manifest.sha256).toBe(unbroken.sha256);
    expect(log).toMatch(
      new RegExp(`warning: .*step-${at}.*; going on from the checkpoint before it, .*step-${at - 3}`),
    );
    expect(manifest.build.resumed).toEqual([at - 3]);

    await killAfter('torn2', recipe, 5);
    for (const f of readdirSync(join(home, 'torn2.checkpoints'))) {
      const file = join(home, 'torn2.checkpoints', f, 'weights.safetensors');
      writeFileSync(file, readFileSync(file).subarray(0, 100));
    }
    const p = build('torn2', recipe);
    const err = stderrOf(p);
    expect(await exited(p)).toBe(2);
    expect(err()).toMatch(
      /no readable checkpoint in .*torn2\.checkpoints: .*; remove that folder to start the build over/,
    );
  }, 300_000);

  it("an ensemble resumes each member from its own checkpoints, to the unbroken ensemble's bytes", async () => {
    const ensemble: WorldEncoderRecipe = { ...recipe, jepa: { ...recipe.jepa, steps: 30 }, members: [5, 9] };
    const unbroken = await buildWorldEncoder(ensemble);
    await killAfter('ens', ensemble, 8);
    expect(readdirSync(join(home, 'ens.checkpoints')).sort()).toEqual(['member-5', 'member-9']);
    const { manifest, log } = await finish('ens', ensemble);
    expect(manifest.sha256).toBe(unbroken.sha256);
    expect(manifest.members).toEqual(
      unbroken.manifest.members!.map((m) => ({
        ...m,
        seconds: expect.any(Number),
        secondsPerStep: expect.any(Number),
      })),
    );
    expect(log).toMatch(/member 5: resumed from .*member-5 at step \d+\/30/);
    expect(existsSync(join(home, 'ens.checkpoints'))).toBe(false);
  }, 300_000);
});
