// The job worker: a process entry (main.ts, like cli/) that owns the table of run kinds (jobs.ts) and runs one job.
export { workerCommand } from './command';
export { EXECUTOR_FILE } from './executor';
