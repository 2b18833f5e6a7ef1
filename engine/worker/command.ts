// How to start a job's worker process (main.ts here, or worker.js in the Electron bundle).
import { entryCommand, type EntryCommand } from '../child';

export const workerCommand = (): EntryCommand => entryCommand(import.meta.url, 'main.ts', 'worker.js');
