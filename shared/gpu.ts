// The WebGPU adapter a run or an embedding used, as stored with it: which GPU (or emulator) did the arithmetic.
import { z } from 'zod';

export const GpuAdapter = z.object({
  vendor: z.string(), // e.g. 'nvidia', 'amd', 'apple', 'google' (SwiftShader)
  architecture: z.string(), // e.g. 'ampere', 'rdna-3', 'swiftshader'
  description: z.string(), // the driver's words, e.g. 'SwiftShader driver 5.0.0'
  fallback: z.boolean(), // a CPU-type adapter (SwiftShader, llvmpipe): correct, not GPU speed
});
export type GpuAdapter = z.infer<typeof GpuAdapter>;

// Where ONNX image encoders run: auto = CUDA when its provider is installed, else WebGPU on a real GPU, else CPU.
export const IMAGE_DEVICES = ['auto', 'cpu', 'cuda', 'webgpu'] as const;
export const ImageDevice = z.enum(IMAGE_DEVICES);
export type ImageDevice = z.infer<typeof ImageDevice>;

export const describeAdapter = (a: GpuAdapter): string =>
  `${a.vendor || 'unknown vendor'} ${a.architecture || ''} (${a.description || 'no description'})${a.fallback ? ', a CPU emulation: not GPU speed' : ''}`.replace(
    /\s+/g,
    ' ',
  );
