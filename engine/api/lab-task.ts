// The lab's child process: one task as JSON on stdin, one JSON reply line on stdout (see runLabTask in lab.ts).
import { writeBundle } from '../report';
import { InputError } from '../errors';
import type { LabReply, LabTask } from './lab';
import { matchImages } from './match';

async function run(task: LabTask): Promise<unknown> {
  if (task.task === 'match') return matchImages(task.runDir, task.images, task.pool, task.topK);
  writeBundle(task.runDir, task.out);
  return { out: task.out };
}

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
let reply: LabReply;
try {
  reply = { ok: true, result: await run(JSON.parse(Buffer.concat(chunks).toString('utf8')) as LabTask) };
} catch (err) {
  reply = { ok: false, error: (err as Error).message, input: err instanceof InputError };
}
process.stdout.write(JSON.stringify(reply) + '\n', () => process.exit(0)); // tfjs / ORT threads would keep it alive
