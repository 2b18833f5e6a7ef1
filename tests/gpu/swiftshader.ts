// WebGPU tests run on SwiftShader, the Vulkan driver Debian's chromium package ships (a GPU emulated on the CPU:
// correct, slow). Dawn also needs the Vulkan loader libvulkan.so.1: the system's, or chromium's private copy, which
// vitest.config.ts puts on the workers' library path.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

const systemLoader = (): boolean => {
  try {
    return /libvulkan\.so\.1\b/.test(
      execFileSync('ldconfig', ['-p'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
  } catch {
    return false;
  }
};

// Why WebGPU tests cannot run here, or null when they can.
export function swiftshaderMissing(): string | null {
  if (process.platform !== 'linux') return 'SwiftShader tests run on Linux only';
  if (!existsSync(SWIFTSHADER_ICD)) return `no ${SWIFTSHADER_ICD} (Debian package chromium)`;
  const path = process.env.LD_LIBRARY_PATH ?? '';
  if (!systemLoader() && !path.split(':').some((d) => d && existsSync(join(d, 'libvulkan.so.1'))))
    return 'no Vulkan loader libvulkan.so.1 (Debian package libvulkan1)';
  return null;
}

// Points the Vulkan loader at SwiftShader only (it reads these when Dawn creates its instance, so setting them in
// the test process before the first adapter request is enough).
export function useSwiftShader(): void {
  process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  if (!process.env.XDG_RUNTIME_DIR) {
    const dir = join(tmpdir(), `prh-xdg-${process.pid}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    process.env.XDG_RUNTIME_DIR = dir; // else Dawn prints a harmless error about it
  }
}

// The environment a child process needs to run on SwiftShader (for `npm run bench -- gpu` on a machine without a
// GPU): the ICD, and chromium's Vulkan loader through a folder holding just a link to it when the system has none.
export function swiftshaderEnv(cacheDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    VK_ICD_FILENAMES: SWIFTSHADER_ICD,
    XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? tmpdir(),
  };
  const dir = chromiumLoaderDir(cacheDir);
  if (dir) env.LD_LIBRARY_PATH = [dir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return env;
}

// Where the system has no libvulkan.so.1 but chromium has its private copy: a folder under cacheDir holding just a link
// to that copy, for LD_LIBRARY_PATH (the dynamic loader reads it at process start); else null.
export function chromiumLoaderDir(cacheDir: string): string | null {
  const chromiumLoader = '/usr/lib/chromium/libvulkan.so.1';
  if (!existsSync(chromiumLoader) || systemLoader()) return null;
  const dir = join(cacheDir, 'vulkan-loader');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'libvulkan.so.1'))) symlinkSync(chromiumLoader, join(dir, 'libvulkan.so.1'));
  return dir;
}
