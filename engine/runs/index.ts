// Runs: the store on disk, the scheduler of worker processes, and the job interface jobs implement. The worker
// process that runs a job, and the table of run kinds, live in engine/worker.
export {
  RunStore,
  readMetricsFile,
  scanMetricsFile,
  cutTornTail,
  badLinesText,
  compactMetricsFile,
  metricKey,
  type MetricsScan,
} from './store';
export { Scheduler, type SchedulerOptions } from './scheduler';
export {
  LocalExecutor,
  type Ending,
  type Execution,
  type ExecutionSink,
  type Executor,
  type Placement,
} from './executor';
export { TIME_FILE, TimeLog, readTimeLog } from './time-log';
export { Cancelled, WorkerMessage, type Job, type JobContext, type JobOutcome } from './job';
export {
  STALE_MS,
  claim,
  describeOwner,
  heartbeat,
  HEARTBEAT_MS,
  otherOwner,
  ownerAlive,
  readOwner,
  release,
  signalWorker,
  type OwnerProbe,
  type OwnerRecord,
} from './owner';
