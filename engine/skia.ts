// @napi-rs/canvas (Skia), loaded on first use: loading its native library costs ~0.35 s of CPU, and most commands and
// jobs draw nothing (`prh --help`, a text arm's training). Its types are imported as types where it is used.
import { createRequire } from 'node:module';

type Skia = typeof import('@napi-rs/canvas');
let loaded: Skia | undefined;
export const skia = (): Skia => (loaded ??= createRequire(import.meta.url)('@napi-rs/canvas') as Skia);
