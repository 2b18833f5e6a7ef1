// onnxruntime-node sessions: CPU with explicit thread counts by default; the CUDA execution provider when the
// user installed it (`npm run install:cuda`); the WebGPU execution provider
// (built into onnxruntime-node, any GPU with Vulkan/Metal/D3D12) when asked for or, under auto, on a real GPU
// adapter; else CPU with a message.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { type GpuAdapter, ImageDevice, describeAdapter } from '../../shared/gpu';
import { InputError } from '../errors';
import { realGpu, requestWebGpu } from '../gpu';

export const Device = ImageDevice;
export type Device = ImageDevice;

export type SessionOptions = {
  device?: Device; // auto: CUDA when its provider library is installed, else WebGPU on a real GPU, else CPU
  threads?: number; // intra-op threads on CPU; 0 lets onnxruntime pick (one per core)
  log?: (message: string) => void; // where the fallback notice goes
};

export type SessionDevice = 'cpu' | 'cuda' | 'webgpu';
// adapter: the WebGPU adapter the probe found (onnxruntime opens its own Dawn instance on the same default adapter)
export type Session = { session: ort.InferenceSession; device: SessionDevice; adapter: GpuAdapter | null };

// The CUDA provider ships outside the npm tarball; its postinstall puts it next to the binding.
export function cudaProviderPath(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
  return join(pkg, 'bin', 'napi-v6', process.platform, process.arch, 'libonnxruntime_providers_cuda.so');
}

const cpuOptions = (threads: number): ort.InferenceSession.SessionOptions => ({
  executionProviders: ['cpu'],
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  logSeverityLevel: 3, // errors only: onnxruntime's warnings are not the user's business
});

async function create(
  model: Uint8Array,
  options: ort.InferenceSession.SessionOptions,
  source: string,
): Promise<ort.InferenceSession> {
  try {
    return await ort.InferenceSession.create(model, options);
  } catch (err) {
    throw new InputError(`${source}: onnxruntime cannot load the model: ${(err as Error).message.split('\n')[0]}`);
  }
}

export async function openSession(model: Uint8Array, source: string, opts: SessionOptions = {}): Promise<Session> {
  const device = opts.device ?? 'auto';
  const threads = opts.threads ?? 0;
  const log = opts.log ?? ((m: string) => console.warn(m));
  if (device === 'cuda' || device === 'auto') {
    const installed = existsSync(cudaProviderPath());
    if (installed) {
      try {
        const session = await ort.InferenceSession.create(model, {
          ...cpuOptions(threads),
          executionProviders: ['cuda', 'cpu'],
        });
        return { session, device: 'cuda', adapter: null };
      } catch (err) {
        log(`CUDA execution provider failed (${(err as Error).message.split('\n')[0]}); using the CPU`);
      }
    } else if (device === 'cuda') {
      log('CUDA execution provider is not installed (npm run install:cuda); using the CPU');
    }
  }
  if (device === 'webgpu' || device === 'auto') {
    const found = device === 'auto' ? await realGpu() : await requestWebGpu();
    if (found && 'gpu' in found) {
      try {
        const session = await ort.InferenceSession.create(model, {
          ...cpuOptions(threads),
          executionProviders: ['webgpu', 'cpu'],
        });
        log(`WebGPU execution provider on ${describeAdapter(found.info)}`);
        return { session, device: 'webgpu', adapter: found.info };
      } catch (err) {
        log(`WebGPU execution provider failed (${(err as Error).message.split('\n')[0]}); using the CPU`);
      }
    } else if (found) log(`WebGPU: ${found.reason}; using the CPU`);
  }
  return { session: await create(model, cpuOptions(threads), source), device: 'cpu', adapter: null };
}
