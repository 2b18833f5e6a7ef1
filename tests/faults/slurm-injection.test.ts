// A served page can never choose what a Slurm job runs or where it writes: it may set the named resources of a job
// (validated values), never free #SBATCH lines, shell lines, the nodes' Node.js or the project folder; and no
// `extra` line, even in the settings file, can replace an option the batch script sets itself. Then a seeded fuzz of
// every settings and executor field with hostile values: none reaches a generated script.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { afterAll, describe, expect, it } from 'vitest';
import { Service } from '../../engine/api';
import { generateWorld } from '../../engine/data';
import { RandomStream } from '../../engine/random';
import { batchScript, workerJob } from '../../engine/slurm';
import { ApiParams } from '../../shared/api';
import { resolveExecutor, Settings, SlurmSettings, type RunExecutor } from '../../shared/settings';

const home = mkdtempSync(join(tmpdir(), 'prh-slurm-inject-'));
const outside = mkdtempSync(join(tmpdir(), 'prh-slurm-outside-'));
const world = join(home, 'datasets', 'w');
generateWorld(world, { seed: 1, splits: { train: 4, val: 2, test: 2 }, imageSize: 16 });

let settings: Record<string, unknown> = { theme: 'system', executor: 'slurm', slurm: { partition: 'debug' } };
const service = (confine: boolean) =>
  new Service({
    runsDir: join(home, 'runs'),
    userData: home,
    transport: 'ws',
    concurrency: 1,
    confine,
    settings: { get: () => Settings.parse(settings), set: (p) => (settings = { ...settings, ...p }) as never },
  });
const served = service(true);
afterAll(() => served.close());

const errorOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

// The options the script itself writes, and the named resources: every #SBATCH line of a job a served page shaped.
const SCRIPT_OWN = ['job-name', 'output', 'open-mode', 'requeue', 'no-requeue'];
const RESOURCES = ['partition', 'account', 'time', 'gres', 'cpus-per-task', 'mem', 'qos', 'reservation', 'constraint'];
const worker = { command: process.execPath, args: ['--import', 'tsx', '/p/engine/worker/main.ts'], env: {} };
const run = { id: 'r1', dir: join(home, 'runs', 'r1') };
const scriptOf = (e: RunExecutor & { kind: 'slurm' }) => batchScript(workerJob(run, worker, e.slurm, false));

// What a script built from served input must look like: only the script's own and the named options, once each,
// its own --output, no line but the template's.
function expectTemplate(script: string, what: string): void {
  const lines = script.split('\n');
  const sbatch = lines.filter((l) => l.startsWith('#SBATCH '));
  const names = sbatch.map((l) => /^#SBATCH --([a-z-]+)/.exec(l)?.[1]);
  for (const n of names) expect([...SCRIPT_OWN, ...RESOURCES, 'exclusive'], `${what}: ${n}`).toContain(n);
  expect(new Set(names).size, what).toBe(names.length);
  expect(
    sbatch.filter((l) => l.startsWith('#SBATCH --output=')),
    what,
  ).toEqual([`#SBATCH --output=${join(run.dir, 'slurm-%j.out')}`]);
  const rest = lines.filter((l) => !l.startsWith('#SBATCH ') && l !== '');
  expect(rest.length, what).toBe(8); // shebang, comment, set -eu, echo, cd, resume x2, exec
  expect(
    rest.filter((l) => l.startsWith('exec ')),
    what,
  ).toEqual([`exec node --import tsx /p/engine/worker/main.ts ${run.dir} \${resume:+"$resume"}`]);
}

describe("a served page and a Slurm job's lines", () => {
  it('cannot set free #SBATCH lines in the settings (the reported --export / --output / --chdir / --wrap)', async () => {
    for (const extra of [
      ['--export=ALL,NODE_OPTIONS=--require=/tmp/evil.js'],
      ['--output=$HOME/.bashrc'],
      ['--chdir=/'],
      ['--wrap=id'],
    ])
      expect(await errorOf(served.dispatch('setSettings', { slurm: { partition: 'debug', extra } }))).toMatch(
        /slurm\.extra\.0: --\w+ is set by the batch script itself/,
      );
    // A line that would be a fine option in the settings file is still not the page's to set.
    expect(
      await errorOf(served.dispatch('setSettings', { slurm: { partition: 'debug', extra: ['--qos=high'] } })),
    ).toMatch(/^slurm\.extra cannot be changed from a served page/);
    expect(settings.slurm).toEqual({ partition: 'debug' });
  });

  it("cannot add free lines through an experiment's executor, and nothing is stored", async () => {
    const before = served.store.ids().length;
    for (const field of ['extra', 'setup', 'node', 'project'])
      expect(
        await errorOf(
          served.dispatch('startRun', {
            config: {
              kind: 'experiment',
              version: 1,
              data: world,
              executor: { kind: 'slurm', [field]: ['--chdir=/', '--wrap=id'] },
            },
          }),
        ),
      ).toMatch(new RegExp(`not an experiment's executor field: ${field}`));
    expect(served.store.ids().length).toBe(before);
  });

  it('may pick partition, time, GPUs, CPUs, memory, QOS, reservation, constraint and exclusive', async () => {
    const resources = {
      partition: 'gpu',
      account: 'lab',
      time: '1-00:00:00',
      gpus: 2,
      gpuType: 'a100',
      cpus: 8,
      memory: '64G',
      qos: 'high',
      reservation: 'course',
      constraint: 'a100&ib',
      exclusive: true,
    };
    await served.dispatch('setSettings', { slurm: resources });
    const script = scriptOf(resolveExecutor(Settings.parse(settings)) as RunExecutor & { kind: 'slurm' });
    expectTemplate(script, 'all resources');
    expect(script).toContain('#SBATCH --gres=gpu:a100:2\n');
    expect(script).toContain('#SBATCH --constraint=a100&ib\n#SBATCH --exclusive\n');
    settings = { ...settings, slurm: { partition: 'debug' } };
  });
});

describe("the settings file's extra lines", () => {
  const refused: [string, RegExp][] = [
    ['--output=$HOME/.bashrc', /--output is set by the batch script/],
    ['--out=/tmp/x', /--out is set by the batch script/], // sbatch takes a prefix of a long option
    ['-o /tmp/x', /-o is set by the batch script/],
    ['#SBATCH --error=/tmp/x', /--error is set/],
    ['--export=ALL,NODE_OPTIONS=--require=/tmp/evil.js', /--export is set/],
    ['--expo=ALL', /--expo is set/],
    ['--chdir=/', /--chdir is set/],
    ['-D /', /-D is set/],
    ['--wrap=id', /--wrap is set/],
    ['--job-name=x', /--job-name is set/],
    ['--no-requeue', /--no-requeue is set/],
    ['--qos=high --output=/tmp/x', /one sbatch option per line/],
    ['-Qo /tmp/x', /one sbatch option per line/], // bundled short options
    ['--comment="two words"', /one sbatch option per line/],
    ['qos=high', /one sbatch option per line/],
  ];
  it.each(refused)('refuses %s, saying why', (line, why) => {
    const r = SlurmSettings.safeParse({ extra: [line] });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].message).toMatch(why);
    // and the script refuses it too, whatever route it came by
    expect(() => batchScript(workerJob(run, worker, { extra: [line] } as SlurmSettings, false))).toThrow(why);
  });

  it("takes other options, one per line, after the script's own", () => {
    const s = SlurmSettings.parse({ extra: ['--mail-type=END', '#SBATCH --begin=now+60', '--nice 10', '-N 1'] });
    const script = batchScript(workerJob(run, worker, s, false));
    expect(script).toContain('#SBATCH --mail-type=END\n#SBATCH --begin=now+60\n#SBATCH --nice 10\n#SBATCH -N 1\n');
  });
});

// Hostile values: shell metacharacters, #SBATCH lines after a line break, the reported options, paths with ..,
// a symlink out of the roots, quotes, NUL, long strings, and values of the wrong type.
const HOSTILE: unknown[] = [
  '; id',
  '$(id)',
  '`id`',
  '| sh',
  '&& curl x | sh',
  "' ; id '",
  '"; id; "',
  'a\n#SBATCH --output=/tmp/prh-evil',
  'a\r\n#SBATCH --wrap=id',
  'x\0y',
  '--export=ALL,NODE_OPTIONS=--require=/tmp/prh-evil.js',
  '--output=$HOME/.bashrc',
  '--chdir=/',
  '--wrap=id',
  '#SBATCH --wrap=id',
  '-o /tmp/prh-evil',
  '../../../../etc/passwd',
  join(home, 'datasets', '..', '..', 'evil'),
  outside,
  '/etc/passwd',
  'a'.repeat(5000),
  'gpu --output=/tmp/prh-evil',
  'gpu\t--wrap=id',
  '${HOME}',
  '%j',
  'ümlaut',
  '',
  ' ',
  -1,
  1e9,
  0.5,
  Number.NaN,
  true,
  null,
  [],
  {},
  ['--wrap=id'],
  { $: 'x' },
];
const FIELDS = [
  'partition',
  'account',
  'time',
  'gpus',
  'gpuType',
  'cpus',
  'memory',
  'qos',
  'reservation',
  'constraint',
  'exclusive',
  'extra',
  'setup',
  'node',
  'project',
  'requeue',
  'maxResubmits',
  'pollSeconds',
];

describe('a seeded fuzz of every settings and executor field', () => {
  it('lets no hostile value from a served page reach a generated script, nor a file outside the roots', async () => {
    const r = new RandomStream(xoroshiro128plus(4701));
    // Half valid values (a name, a count, a time, a flag), so that many payloads pass and their scripts are checked.
    const VALID: unknown[] = ['gpu', 'a100', 'normal', 2, 8, '4:00:00', '32G', true, false, 'a100&ib'];
    const value = (): unknown => {
      const v = r.int(0, 1) ? r.pick(VALID) : r.pick(HOSTILE);
      return r.int(0, 3) === 0 ? [v, r.pick(HOSTILE)] : v; // arrays too, for the line fields
    };
    const payloads: Record<string, unknown>[] = [];
    for (const f of FIELDS) for (const v of HOSTILE) payloads.push({ [f]: v }, { [f]: [v] }); // each field x value
    for (let i = 0; i < 1500; i++) {
      const p: Record<string, unknown> = {};
      for (const f of r.shuffled(FIELDS).slice(0, r.int(1, 3))) p[f] = value();
      payloads.push(p);
    }
    let sent = 0;
    let accepted = 0;
    for (const p of payloads) {
      // Through the settings, as the Settings screen sends them.
      settings = { theme: 'system', executor: 'slurm', slurm: { partition: 'debug' } };
      sent++;
      try {
        await served.dispatch('setSettings', { executor: 'slurm', slurm: p });
        accepted++;
      } catch {
        /* refused: the point */
      }
      expectTemplate(
        scriptOf(resolveExecutor(Settings.parse(settings)) as RunExecutor & { kind: 'slurm' }),
        JSON.stringify(p),
      );
      // Through an experiment's executor, as New experiment sends it (the call's own validation, before any run).
      sent++;
      const call = ApiParams.startRun.safeParse({
        config: { kind: 'experiment', version: 1, data: world, executor: { kind: 'slurm', ...p } },
      });
      if (!call.success || call.data.config.kind !== 'experiment') continue;
      accepted++;
      const e = resolveExecutor(Settings.parse(settings), call.data.config.executor);
      expectTemplate(scriptOf(e as RunExecutor & { kind: 'slurm' }), JSON.stringify(p));
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync('/tmp/prh-evil') || existsSync('/tmp/prh-evil.js')).toBe(false);
    expect(sent).toBeGreaterThan(4000);
    console.log(`slurm fuzz: ${sent} payloads (${payloads.length} settings + as many executors), ${accepted} accepted`);
  });
});
