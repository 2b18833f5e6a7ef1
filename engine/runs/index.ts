// Runs: the store on disk, the scheduler of worker processes, and the job interface jobs implement.
export { RunStore, readMetricsFile } from './store';
export { Scheduler, selfWorker, type WorkerCommand, type SchedulerOptions } from './scheduler';
export { Cancelled, type Job, type JobContext, type JobOutcome } from './job';
