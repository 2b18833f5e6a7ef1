// Slurm: child runs as batch jobs. The client (sbatch of a generated script, job states from scontrol/sacct,
// scancel, failures in Slurm's words), the executor the scheduler drives (engine/runs' Executor, injected by
// engine/worker), and `prh slurm check`.
export { Slurm, jobFailure, outputTail, type Partition, type Submitted } from './client';
export { SlurmError, type SlurmEnv } from './command';
export { jobEnded, jobPhase, type JobPhase, type SlurmJob } from './job';
export { batchScript, nodeCommand, sbatchOptions, workerJob, type BatchJob } from './script';
export { slurmCheck, type CheckOptions, type CheckReport, type CheckRow } from './check';
export { SlurmExecutor, type SlurmExecutorOptions } from './executor';
