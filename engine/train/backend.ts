// Which tfjs backend trains: tfjs-node-gpu > WebGPU on a real GPU adapter > tfjs-node > wasm (SIMD), picked at run
// time, plus the fixes the wasm backend needs to train a transformer at usable speed (measured:
// docs/reference.md#engines).
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';
import { BACKENDS, type BackendChoice } from '../../shared/train';
import { type GpuAdapter, describeAdapter } from '../../shared/gpu';
import { InputError } from '../errors';
import { type WebGpu, realGpu, requestWebGpu } from '../gpu';
import { type MatMulKernel, useMatMul } from './matmul-kernel';
import { registerWasmKernels } from './wasm-kernels';
import type { HeapBackend } from '../models/wasm-heap';

export { BACKENDS, type BackendChoice };
// adapter: the WebGPU adapter (webgpu backend only); matmul: the wasm backend's matrix product
export type BackendInfo = {
  name: string;
  package: string;
  threads: number;
  adapter?: GpuAdapter;
  matmul?: MatMulKernel;
};

let chosen: BackendInfo | null = null;

// The native bindings are opt-in installs (`npm run install:gpu|native`), so they are probed with a dynamic import.
async function tryNative(pkg: string): Promise<boolean> {
  try {
    await import(/* @vite-ignore */ pkg);
    return tf.setBackend('tensorflow');
  } catch {
    return false;
  }
}

// tfjs-backend-webgpu finds the GPU through navigator.gpu, which Node lacks: Dawn's (npm webgpu) is put there first.
async function useWebGpu(w: WebGpu): Promise<boolean> {
  const prev = (globalThis as { navigator?: object }).navigator;
  Object.defineProperty(globalThis, 'navigator', {
    value: { ...prev, userAgent: 'node', gpu: w.gpu },
    configurable: true,
    writable: true,
  });
  await import('@tensorflow/tfjs-backend-webgpu');
  return tf.setBackend('webgpu');
}

// matmul: the wasm backend's matrix product from here on (default: MLAS, or as a previous call set it).
export async function initBackend(
  choice: BackendChoice = 'auto',
  { matmul }: { matmul?: MatMulKernel } = {},
): Promise<BackendInfo> {
  if (chosen) {
    if (choice !== 'auto' && !chosen.package.endsWith(choice) && choice !== chosen.name)
      throw new InputError(`backend already initialised as ${chosen.name}; cannot switch to ${choice} in one process`);
    if (chosen.matmul && matmul && matmul !== chosen.matmul) chosen.matmul = useMatMul(matmul);
    return chosen;
  }
  if (choice === 'auto' || choice === 'tensorflow-gpu')
    if (await tryNative('@tensorflow/tfjs-node-gpu'))
      return (chosen = { name: 'tensorflow-gpu', package: '@tensorflow/tfjs-node-gpu', threads: 0 });
    else if (choice === 'tensorflow-gpu')
      throw new InputError('backend tensorflow-gpu: @tensorflow/tfjs-node-gpu is not installed (npm run install:gpu)');
  if (choice === 'auto' || choice === 'webgpu') {
    const w = choice === 'auto' ? await realGpu() : await requestWebGpu();
    if (w && 'gpu' in w) {
      if (!(await useWebGpu(w)))
        throw new Error(`tfjs webgpu backend failed to initialise on ${describeAdapter(w.info)}`);
      return (chosen = { name: 'webgpu', package: '@tensorflow/tfjs-backend-webgpu', threads: 0, adapter: w.info });
    }
    if (choice === 'webgpu') throw new InputError(`backend webgpu: ${w ? w.reason : 'no adapter'}`);
  }
  if (choice === 'auto' || choice === 'tensorflow')
    if (await tryNative('@tensorflow/tfjs-node'))
      return (chosen = { name: 'tensorflow', package: '@tensorflow/tfjs-node', threads: 0 });
    else if (choice === 'tensorflow')
      throw new InputError('backend tensorflow: @tensorflow/tfjs-node is not installed (npm run install:native)');
  if (choice === 'cpu') {
    await tf.setBackend('cpu');
    registerSegmentSum('cpu');
    return (chosen = { name: 'cpu', package: '@tensorflow/tfjs', threads: 1 });
  }
  // registers the backend; required, not imported: Node's import of a CommonJS package first scans it for export
  // names, ~50 ms of this 0.4-MB one at every wasm process's start
  createRequire(import.meta.url)('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs wasm backend failed to initialise');
  registerSegmentSum('wasm');
  registerWasmKernels();
  return (chosen = {
    name: 'wasm',
    package: '@tensorflow/tfjs-backend-wasm',
    threads: 1,
    matmul: useMatMul(matmul ?? 'mlas'),
  });
}

export const backendInfo = (): BackendInfo | null => chosen;

type DataBackend = { readSync(id: unknown): Float32Array | Int32Array };

// out[s, :] = sum of x rows i with segmentIds[i] = s; x: [N, ...inner], ids: [N]. This is the gradient of tf.gather
// (embedding lookup). wasm has no kernel for it and cpu's loops over every segment (O(V·N·d)), so it is written here.
function segmentSum(x: Float32Array, ids: Int32Array, numSegments: number, inner: number, out: Float32Array): void {
  out.fill(0);
  for (let i = 0; i < ids.length; i++) {
    const s = ids[i];
    if (s < 0 || s >= numSegments) continue;
    const o = s * inner,
      r = i * inner;
    for (let k = 0; k < inner; k++) out[o + k] += x[r + k];
  }
}

export function registerSegmentSum(backendName: 'wasm' | 'cpu'): void {
  if (tf.getKernel('UnsortedSegmentSum', backendName)) tf.unregisterKernel('UnsortedSegmentSum', backendName);
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName,
    kernelFunc: ({ inputs, attrs, backend }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const numSegments = (attrs as { numSegments: number }).numSegments;
      if (x.dtype !== 'float32') throw new Error(`UnsortedSegmentSum: only float32 is implemented, got ${x.dtype}`);
      const inner = x.shape.slice(1).reduce((a, b) => a * b, 1);
      const shape = [numSegments, ...x.shape.slice(1)];
      if (backendName === 'wasm') {
        const b = backend as unknown as HeapBackend;
        const out = b.makeOutput(shape, 'float32');
        segmentSum(
          b.typedArrayFromHeap(x) as Float32Array,
          toInt32(b.typedArrayFromHeap(segmentIds)),
          numSegments,
          inner,
          b.typedArrayFromHeap(out) as Float32Array,
        );
        return out;
      }
      const b = backend as unknown as DataBackend & {
        makeTensorInfo(s: number[], d: tf.DataType, v: Float32Array): tf.TensorInfo;
      };
      const out = new Float32Array(numSegments * inner);
      segmentSum(b.readSync(x.dataId) as Float32Array, toInt32(b.readSync(segmentIds.dataId)), numSegments, inner, out);
      return b.makeTensorInfo(shape, 'float32', out);
    },
  });
}

const toInt32 = (a: Float32Array | Int32Array): Int32Array => (a instanceof Int32Array ? a : Int32Array.from(a));
