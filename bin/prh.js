#!/usr/bin/env node
// The `prh` command: the TypeScript engine's CLI, bundled from its sources (entry.js).
import { join } from 'node:path';
import { runEntry } from './entry.js';

await runEntry(join(import.meta.dirname, '..', 'engine', 'cli', 'main.ts'));
