// An ONNX image encoder ready to run: the model file (hashed), its resolved spec, the tensor the embedding comes
// from (exposed as an output when it is an intermediate), and the session.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { InputError } from '../errors';
import { decodeModel, describeModel, exposeOutput, formatTensor } from '../models/onnx';
import type { GpuAdapter } from '../../shared/gpu';
import { openSession, type SessionDevice, type SessionOptions } from './session';
import { type ImageSpec, type Preset, type SpecOverrides, resolveSpec } from './spec';

export type EncoderOptions = SessionOptions & { preset?: Preset; overrides?: SpecOverrides };

export type ImageEncoder = {
  source: string; // model file path
  modelSha256: string; // of the file's bytes
  spec: ImageSpec;
  device: SessionDevice;
  adapter: GpuAdapter | null; // the WebGPU adapter when device is webgpu
  fixedBatch: number | null; // the model's input takes exactly this many images per call (exported without a batch axis)
  // pixels: [n, 3, size, size] -> embeddings [n, dim]
  encode(pixels: Float32Array, n: number): Promise<{ dim: number; data: Float32Array }>;
  release(): Promise<void>;
};

// rows of out: [n, ...rest] pooled to [n, dim] as the spec says.
function pool(out: ort.Tensor, n: number, spec: ImageSpec, source: string): { dim: number; data: Float32Array } {
  const dims = out.dims.map(Number);
  const data = out.data as Float32Array;
  const { pool: how, tensor, prefixTokens } = spec.embedding;
  if (dims[0] !== n)
    throw new InputError(
      `${source}: output '${tensor}' has batch ${dims[0]} for ${n} images; its first axis must be the batch`,
    );
  if (how === 'none') return { dim: data.length / n, data };
  if (dims.length !== 3)
    throw new InputError(
      `${source}: pool '${how}' expects '${tensor}' of rank 3 [N, tokens, D], actual [${dims.join(', ')}]`,
    );
  const [, T, D] = dims;
  const res = new Float32Array(n * D);
  if (how === 'cls') {
    for (let i = 0; i < n; i++) res.set(data.subarray(i * T * D, i * T * D + D), i * D);
    return { dim: D, data: res };
  }
  if (T <= prefixTokens)
    throw new InputError(`${source}: '${tensor}' has ${T} tokens, none after the ${prefixTokens} prefix token(s)`);
  for (let i = 0; i < n; i++) {
    const row = res.subarray(i * D, (i + 1) * D);
    for (let t = prefixTokens; t < T; t++) {
      const tok = data.subarray((i * T + t) * D, (i * T + t + 1) * D);
      for (let d = 0; d < D; d++) row[d] += tok[d];
    }
    for (let d = 0; d < D; d++) row[d] /= T - prefixTokens;
  }
  return { dim: D, data: res };
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export async function openImageEncoder(modelPath: string, opts: EncoderOptions = {}): Promise<ImageEncoder> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(modelPath);
  } catch (err) {
    throw new InputError(`${modelPath}: cannot read the model (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const modelSha256 = sha256(bytes);
  const model = decodeModel(bytes, modelPath);
  const info = describeModel(model);
  const spec = resolveSpec(info, modelPath, opts.preset, opts.overrides);
  let output = spec.embedding.tensor;
  if (!info.outputs.some((o) => o.name === output)) ({ bytes, output } = exposeOutput(model, output, modelPath));
  const { session, device, adapter } = await openSession(bytes, modelPath, opts);
  const meta = session.outputMetadata.find((m) => m.name === output);
  if (meta?.isTensor && meta.type !== 'float32') {
    const usable = session.outputMetadata.filter((m) => m.isTensor && m.type === 'float32').map((m) => m.name);
    throw new InputError(
      `${modelPath}: output '${output}' is ${meta.type}, not float32; float outputs: ${usable.join(', ') || 'none'}; ` +
        `all outputs: ${info.outputs.map(formatTensor).join(', ')}`,
    );
  }
  const { size } = spec;
  const batchDim = info.inputs.find((i) => i.name === spec.input)?.dims?.[0];
  const fixedBatch = typeof batchDim === 'number' && batchDim > 0 ? batchDim : null;
  return {
    source: modelPath,
    modelSha256,
    spec,
    device,
    fixedBatch,
    adapter,
    async encode(pixels, n) {
      const x = new ort.Tensor('float32', pixels.subarray(0, n * 3 * size * size), [n, 3, size, size]);
      let res: ort.InferenceSession.ReturnType;
      try {
        res = await session.run({ [spec.input]: x }, [output]);
      } catch (err) {
        // onnxruntime's message in full (it spans lines); a model exported for one image at a time is the common cause.
        const ortText = (err as Error).message
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .join(' ');
        throw new InputError(
          `${modelPath}: inference failed for input [${n}, 3, ${size}, ${size}]: ${ortText}${n > 1 ? '; if the model takes one image per call, --batch 1 runs it' : ''}`,
        );
      }
      return pool(res[output], n, spec, modelPath);
    },
    release: () => session.release(),
  };
}
