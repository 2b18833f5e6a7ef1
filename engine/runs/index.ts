// Runs: the store on disk, the scheduler of worker processes, and the job interface jobs implement. The worker
// process that runs a job, and the table of run kinds, live in engine/worker.
export { RunStore, readMetricsFile, scanMetricsFile, cutTornTail, badLinesText, compactMetricsFile, metricKey, type MetricsScan } from './store';
export { Scheduler, type SchedulerOptions } from './scheduler';
export { Cancelled, type Job, type JobContext, type JobOutcome, type WorkerMessage } from './job';
export { claim, heartbeat, HEARTBEAT_MS, ownerAlive, readOwner, release, type OwnerRecord } from './owner';
