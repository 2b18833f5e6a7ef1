// A run through a real scheduler and worker processes, to its end, in `runsDir`.
import { RunStore, Scheduler } from '../../engine/runs';
import { workerCommand } from '../../engine/worker';
import { RunConfig } from '../../shared/runs';

export async function runToEnd(runsDir: string, config: unknown) {
  const store = new RunStore(runsDir);
  const scheduler = new Scheduler(store, { concurrency: 1, worker: workerCommand() });
  const { id } = store.create(RunConfig.parse(config));
  scheduler.submit(id);
  await scheduler.idle();
  return { store, id, state: store.get(id) };
}
