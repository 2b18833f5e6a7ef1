// The WebGPU adapter, through Dawn's Node binding (npm `webgpu`, a prebuilt dawn.node per platform in its tarball).
// Imported only when a GPU path is asked for (a webgpu device/backend, or `auto` on a machine with a GPU device
// node), so wasm and CPU users never load it. Dawn reaches the GPU through Vulkan (Linux), Metal (macOS) or D3D12
// (Windows); tests run it on SwiftShader, a Vulkan driver that emulates a GPU on the CPU (correct, not fast).
import { existsSync, readdirSync } from 'node:fs';
import type { GpuAdapter } from '../../shared/gpu';

export type WebGpu = { gpu: GPU; adapter: GPUAdapter; info: GpuAdapter };
export type NoWebGpu = { reason: string };

// Dawn dlopens the Vulkan loader on Linux; without it there is no adapter, and the hint says what to install.
const LINUX_HINT =
  ' (Linux: the Vulkan loader libvulkan.so.1, Debian/Ubuntu package libvulkan1, and a GPU driver with Vulkan support)';

let probe: Promise<WebGpu | NoWebGpu> | null = null;

// One adapter per process, asked for once: Dawn's instance and adapter are reused by every later caller.
export function requestWebGpu(): Promise<WebGpu | NoWebGpu> {
  probe ??= (async (): Promise<WebGpu | NoWebGpu> => {
    let mod: typeof import('webgpu');
    try {
      mod = await import('webgpu');
    } catch (err) {
      return {
        reason: `the npm package webgpu cannot be loaded (${(err as Error).message.split('\n')[0]}); reinstall with npm ci`,
      };
    }
    // GPUBufferUsage, GPUMapMode, ...: WebGPU's constants, which tfjs-backend-webgpu reads as globals.
    Object.assign(globalThis, mod.globals);
    const gpu = mod.create([]);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return { reason: `no WebGPU adapter${process.platform === 'linux' ? LINUX_HINT : ''}` };
    return { gpu, adapter, info: adapterInfo(adapter.info) };
  })();
  return probe;
}

// Dawn marks CPU-type adapters (SwiftShader, llvmpipe/lavapipe) as fallback; the names are checked too, since a
// driver's device type is its own claim.
export function adapterInfo(i: GPUAdapterInfo): GpuAdapter {
  const emulated = /swiftshader|llvmpipe|lavapipe|software/i.test(`${i.architecture} ${i.description} ${i.device}`);
  const fallback = Boolean((i as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter) || emulated;
  return { vendor: i.vendor, architecture: i.architecture, description: i.description, fallback };
}

// Whether this machine may have a GPU at all, checked without loading Dawn: Linux exposes one as /dev/dri/renderD*
// or /dev/nvidia*; elsewhere the adapter query is the only check.
export function mayHaveGpu(): boolean {
  if (process.platform !== 'linux') return true;
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
  return list('/dev/dri').some((f) => f.startsWith('renderD')) || list('/dev').some((f) => /^nvidia\d+$/.test(f));
}

// `auto`: WebGPU only on a real GPU; a CPU-type adapter would be slower than the CPU paths it replaces.
export async function realGpu(): Promise<WebGpu | null> {
  if (!mayHaveGpu()) return null;
  const w = await requestWebGpu();
  return 'gpu' in w && !w.info.fallback ? w : null;
}
