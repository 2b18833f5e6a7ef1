// `prh`: the workbench from the command line. Every command takes --json; exit codes: 0 ok, 1 failed,
// 2 bad input, 3 diverged, 130 cancelled. A command's engine (tfjs and the models, onnxruntime and the encoders) is
// imported by its action when it runs: every `prh` would otherwise load them first (~0.5 s).
import '../source-maps'; // first: before any package loads
import { Command } from 'commander';
import { reportError } from './output';
import { registerRuns } from './runs';
import { registerTheory } from './theory';
import { registerData } from './data';
import { registerWorldEncoder } from './world-encoder';
import { registerTrain } from './train';
import { registerAlign } from './align';
import { registerImage } from './image';
import { registerExperiment } from './experiment';
import { registerSlurm } from './slurm';
import { registerMatch } from './match';
import { APP_VERSION } from '../version';

let exitCode = 0;
const program = new Command('prh')
  .description('prh-workbench: good views vs bad views vs next-token prediction, and the theory behind them')
  .version(APP_VERSION)
  .showHelpAfterError()
  .exitOverride();

registerRuns(program, (c) => (exitCode = c));
registerTheory(program, (c) => (exitCode = c));
registerData(program);
registerWorldEncoder(program); // adds `world build-encoder` to the `world` group
registerTrain(program, (c) => (exitCode = c));
registerAlign(program);
registerImage(program, (c) => (exitCode = c));
registerExperiment(program, (c) => (exitCode = c));
registerSlurm(program, (c) => (exitCode = c));
registerMatch(program);

try {
  await program.parseAsync(process.argv);
  process.exitCode = exitCode;
} catch (err) {
  const code = (err as { code?: string }).code;
  if (code?.startsWith('commander.')) {
    process.exitCode = code === 'commander.helpDisplayed' || code === 'commander.version' ? 0 : 2;
  } else {
    process.exitCode = reportError(err, process.argv.includes('--json'));
  }
}
