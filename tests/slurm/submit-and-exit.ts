// A `prh` process that submits a train run as a Slurm job and exits once the job runs, leaving owner.json with the
// job id and its own (soon dead) pid: what a stopped `prh serve` leaves behind. Args: <runs folder> <run id>.
import { RunStore, Scheduler } from '../../engine/runs';
import { SlurmExecutor } from '../../engine/slurm';
import { workerCommand } from '../../engine/worker';

const [root, id] = process.argv.slice(2);
const scheduler = new Scheduler(new RunStore(root), {
  executor: new SlurmExecutor({ settings: { pollSeconds: 1 }, worker: workerCommand() }),
});
scheduler.on('event', (e) => e.type === 'status' && e.state.slurm?.state === 'RUNNING' && process.exit(0));
scheduler.submit(id);
setTimeout(() => process.exit(3), 120_000);
