// `prh slurm check`: whether child runs can go to the cluster this machine submits to, check by check.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { fileSettings, runsDirOf, userDataDir } from '../api';
import { slurmCheck } from '../slurm';
import { workerCommand } from '../worker';
import { EXIT, numberOption, printTable } from './output';

type CheckFlags = { runs?: string; partition?: string; account?: string; wait: number; probe: boolean; json?: boolean };

export function registerSlurm(program: Command, setExit: (code: number) => void): void {
  const slurm = program.command('slurm').description('run child runs as Slurm batch jobs');
  slurm
    .command('check')
    .description(
      'check the Slurm commands, the controller, the partition, and a probe job that writes into the runs folder from a node',
    )
    .option('--runs <dir>', 'runs folder (default: the app settings, else <user data>/runs)')
    .option('--partition <name>', 'partition (default: settings slurm.partition, else the cluster default)')
    .option('--account <name>', 'account (default: settings slurm.account)')
    .option('--wait <seconds>', 'how long the probe job may queue and run', numberOption('wait'), 300)
    .option('--no-probe', 'skip the probe job')
    .option('--json', 'print one JSON document')
    .action(async (o: CheckFlags) => {
      const userData = userDataDir();
      const stored = fileSettings(userData).get();
      const settings = {
        ...stored.slurm,
        ...(o.partition ? { partition: o.partition } : {}),
        ...(o.account ? { account: o.account } : {}),
      };
      const runsDir = resolve(o.runs ?? runsDirOf(stored, userData));
      const report = await slurmCheck({
        runsDir,
        settings,
        worker: workerCommand(),
        probe: o.probe,
        waitMs: o.wait * 1000,
        pollMs: 1000,
      });
      setExit(report.ok ? EXIT.ok : EXIT.failed);
      if (o.json) return console.log(JSON.stringify(report));
      printTable(
        report.checks.map((c) => ({ check: c.check, ok: c.ok ? 'ok' : 'FAIL', detail: c.detail.split('\n')[0] })),
      );
      for (const c of report.checks.filter((c) => !c.ok && c.detail.includes('\n')))
        console.log(`\n${c.check}:\n${c.detail}`);
      if (report.kept) console.log(`\nthe probe's files: ${report.kept}`);
      console.log(
        report.ok ? '\nchild runs can run as Slurm jobs here' : '\nnot ready for Slurm: see the failed checks',
      );
    });
}
