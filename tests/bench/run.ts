// `npm run bench`: runs every tests/bench/*.bench.ts suite (or those named on the command line),
// prints each result and writes them all to bench-results/<suite>.json.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type BenchSuite = { name: string; run: () => Promise<Record<string, unknown>> };

const here = import.meta.dirname;
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const outDir = join(here, '..', '..', 'bench-results');
mkdirSync(outDir, { recursive: true });
const machine = { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, date: new Date().toISOString() };

for (const file of files) {
  const suite = (await import(pathToFileURL(join(here, file)).href)).default as BenchSuite;
  if (wanted.length && !wanted.includes(suite.name)) continue;
  console.log(`\n== ${suite.name}`);
  const result = { suite: suite.name, machine, ...(await suite.run()) };
  writeFileSync(join(outDir, `${suite.name}.json`), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
}
