#!/usr/bin/env node
// The `prh` command: runs the TypeScript engine through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../engine/cli/main.ts');
