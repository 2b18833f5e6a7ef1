// Files the app ships in resources/: found next to the source tree (CLI, tests, `prh serve`), or in the
// packaged app's resources folder (Electron), or where PRH_RESOURCES points.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../errors';

export const WORLD_ENCODER = 'world-encoder.onnx';
export const WORLD_ENCODER_MANIFEST = 'world-encoder.json';

export function resourcePath(name: string): string {
  const roots = [
    process.env.PRH_RESOURCES,
    resolve(import.meta.dirname, '..', '..', 'resources'),
    resolve(import.meta.dirname, '..', '..', '..', 'resources'), // out/main/chunks -> repo root
    (process as { resourcesPath?: string }).resourcesPath,
  ].filter((r): r is string => !!r);
  for (const root of roots) if (existsSync(join(root, name))) return join(root, name);
  throw new InputError(`resource ${name} not found (looked in ${roots.join(', ')})`);
}

// 'world' names the shipped world encoder; anything else is a model path.
export const imageModelPath = (model: string) => (model === 'world' ? resourcePath(WORLD_ENCODER) : resolve(model));
