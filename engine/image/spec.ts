// The model spec: everything needed to turn an image file into the model's embedding, stored with every
// embedding so a matrix on disk says how it was made. Presets fill it from the model's declared inputs/outputs.
import { z } from 'zod';
import { InputError } from '../errors';
import { type ModelInfo, type TensorInfo, formatTensor } from '../models/onnx';

const Rgb = z.tuple([z.number(), z.number(), z.number()]);

export const Pool = z.enum(['none', 'cls', 'mean-patches']);
export type Pool = z.infer<typeof Pool>;

export const Preset = z.enum(['dinov2', 'imagenet-cnn', 'custom']);
export type Preset = z.infer<typeof Preset>;

export const ImageSpec = z
  .object({
    preset: Preset,
    input: z.string().min(1), // graph input name, NCHW float32
    size: z.number().int().positive(), // square side fed to the model, px (the centre crop)
    resize: z.number().int().positive(), // shorter side after resizing, px, before the centre crop
    interpolation: z.enum(['nearest', 'bilinear', 'bicubic']),
    mean: Rgb, // per channel, in the units of `range`, in `channels` order
    std: Rgb,
    channels: z.enum(['rgb', 'bgr']),
    range: z.enum(['0-1', '0-255']), // pixel scale before mean/std
    embedding: z.object({
      tensor: z.string().min(1), // a graph output, or any intermediate tensor (exposed as an output)
      // none: the tensor's row, flattened; cls: token 0 of [N,T,D]; mean-patches: mean of tokens prefixTokens..T-1
      pool: Pool,
      prefixTokens: z.number().int().nonnegative().default(1), // CLS (+ registers) before the patch tokens
    }),
  })
  .refine((s) => s.resize >= s.size, { message: 'resize (shorter side) must be at least the crop size' });
export type ImageSpec = z.infer<typeof ImageSpec>;

// Everything the user may set; unset fields come from the preset.
export type SpecOverrides = Partial<Omit<ImageSpec, 'embedding'>> & { embedding?: Partial<ImageSpec['embedding']> };

// The same, flat, as `prh embed` / `prh experiment` flags and the experiment config (shared/experiment.ts) give it.
export type SpecFlags = Partial<Omit<ImageSpec, 'embedding' | 'preset'>> & {
  output?: string;
  pool?: Pool;
  prefixTokens?: number;
};
export function specOverrides(f: SpecFlags): SpecOverrides {
  const pick = <K extends keyof SpecFlags>(k: K) => (f[k] === undefined ? {} : { [k]: f[k] });
  return {
    ...pick('input'),
    ...pick('size'),
    ...pick('resize'),
    ...pick('interpolation'),
    ...pick('mean'),
    ...pick('std'),
    ...pick('channels'),
    ...pick('range'),
    embedding: {
      ...(f.output === undefined ? {} : { tensor: f.output }),
      ...(f.pool === undefined ? {} : { pool: f.pool }),
      ...(f.prefixTokens === undefined ? {} : { prefixTokens: f.prefixTokens }),
    },
  };
}

const IMAGENET = {
  mean: [0.485, 0.456, 0.406] as [number, number, number],
  std: [0.229, 0.224, 0.225] as [number, number, number],
};

// The HF Dinov2 export: pixel_values -> last_hidden_state, pooler_output.
export const isDinov2Layout = (info: ModelInfo): boolean =>
  info.inputs.some((i) => i.name === 'pixel_values') && info.outputs.some((o) => o.name === 'last_hidden_state');

export const detectPreset = (info: ModelInfo): Preset => (isDinov2Layout(info) ? 'dinov2' : 'imagenet-cnn');

const isFloat = (t: TensorInfo): boolean => t.type === 'float32';

// A fixed square input side declared by the model, if any.
function declaredSize(t: TensorInfo | undefined): number | null {
  const h = t?.dims?.[2];
  const w = t?.dims?.[3];
  return typeof h === 'number' && h > 0 && h === w ? h : null;
}

function presetSpec(
  preset: Preset,
  info: ModelInfo,
): Partial<ImageSpec> & { embedding?: Partial<ImageSpec['embedding']> } {
  if (preset === 'custom') return {};
  if (preset === 'dinov2') {
    // HF preprocessing: shorter side 256 bicubic, centre crop 224; a model with a fixed other side keeps that ratio.
    const size = declaredSize(info.inputs.find((i) => i.name === 'pixel_values')) ?? 224;
    return {
      preset,
      input: 'pixel_values',
      size,
      resize: Math.round((size * 256) / 224),
      interpolation: 'bicubic',
      ...IMAGENET,
      channels: 'rgb',
      range: '0-1',
      embedding: {
        tensor: info.outputs.some((o) => o.name === 'pooler_output') ? 'pooler_output' : 'last_hidden_state',
        pool: 'none',
        prefixTokens: 1,
      },
    };
  }
  // imagenet-cnn: the first image input, the first float output; torchvision's 256 -> 224 (ratio 0.875) bilinear.
  const input = info.inputs[0];
  const size = declaredSize(input) ?? 224;
  const out = info.outputs.find(isFloat);
  return {
    preset,
    input: input?.name,
    size,
    resize: Math.round(size / 0.875),
    interpolation: 'bilinear',
    ...IMAGENET,
    channels: 'rgb',
    range: '0-1',
    ...(out ? { embedding: { tensor: out.name, pool: 'none' as const, prefixTokens: 0 } } : {}),
  };
}

// Preset (given, or detected from input/output names) + overrides, validated, and checked against the model.
export function resolveSpec(info: ModelInfo, source: string, preset?: Preset, over: SpecOverrides = {}): ImageSpec {
  const p = preset ?? detectPreset(info);
  const base = presetSpec(p, info);
  const tensor = over.embedding?.tensor ?? base.embedding?.tensor;
  if (!tensor) {
    throw new InputError(
      `${source}: the model has no usable float output; its outputs are ${info.outputs.map(formatTensor).join(', ') || 'none'}. ` +
        `Pick a tensor (e.g. --output NAME) to read the embedding from.`,
    );
  }
  // A token tensor [N, T, D] named without a pool gives its CLS row; any other tensor is flattened per image.
  const byRank: Pool = info.outputs.find((o) => o.name === tensor)?.dims?.length === 3 ? 'cls' : 'none';
  const pool = over.embedding?.pool ?? (over.embedding?.tensor ? byRank : (base.embedding?.pool ?? byRank));
  const embedding = { ...base.embedding, ...over.embedding, tensor, pool };
  // A new crop size without a new resize keeps the preset's resize/crop ratio (256/224 for dinov2).
  const ratio = base.resize && base.size ? base.resize / base.size : undefined;
  const resize = over.resize ?? (over.size && ratio ? Math.round(over.size * ratio) : base.resize);
  const merged = { ...base, ...over, resize, preset: p, embedding };
  const parsed = ImageSpec.safeParse(merged);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ');
    throw new InputError(`${source}: incomplete or invalid model spec for preset '${p}' (${issues})`);
  }
  checkInput(parsed.data, info, source);
  return parsed.data;
}

// Input rank, channel count and fixed sides must agree with the spec; the message gives expected vs actual.
function checkInput(spec: ImageSpec, info: ModelInfo, source: string): void {
  const input = info.inputs.find((i) => i.name === spec.input);
  if (!input)
    throw new InputError(
      `${source}: expected an input named '${spec.input}', the model's inputs are ${info.inputs.map(formatTensor).join(', ')}`,
    );
  const expected = `[N, 3, ${spec.size}, ${spec.size}]`;
  if (!isFloat(input))
    throw new InputError(
      `${source}: input '${input.name}' expected float32 ${expected}, actual ${formatTensor(input)}`,
    );
  const dims = input.dims;
  if (!dims) return; // rank not declared: onnxruntime checks at run time
  const actual = `[${dims.join(', ')}]`;
  if (dims.length !== 4)
    throw new InputError(
      `${source}: input '${input.name}' expected rank 4 ${expected} (NCHW), actual rank ${dims.length} ${actual}`,
    );
  const fixed = (i: number, want: number): boolean => typeof dims[i] !== 'number' || dims[i] === want;
  if (!fixed(1, 3))
    throw new InputError(`${source}: input '${input.name}' expected 3 channels ${expected} (NCHW), actual ${actual}`);
  if (!fixed(2, spec.size) || !fixed(3, spec.size))
    throw new InputError(`${source}: input '${input.name}' expected size ${expected}, actual ${actual}`);
}
