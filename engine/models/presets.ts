// Encoder shapes by name. `cpu` trains the procedural world in minutes on 2 cores (d = 64, 2 layers, ~110k params;
// docs/reference.md#text-encoders); `minilm-33m` and `bert-base-109m` are the paper's BERT shapes (docs/reference.md#text-encoders).
import { z } from 'zod';

export const ProjectorConfig = z.object({
  dims: z.array(z.number().int().positive()).min(1), // output width of each Linear; the last is K
  norm: z.array(z.boolean()), // BatchNorm + activation after Linear i (never after the last)
  act: z.enum(['gelu', 'relu']),
});
export type ProjectorConfig = z.infer<typeof ProjectorConfig>;

export const EncoderConfig = z.object({
  d: z.number().int().positive(),
  layers: z.number().int().positive(),
  heads: z.number().int().positive(),
  ffn: z.number().int().positive(),
  maxLen: z.number().int().min(4), // learned positions, including [CLS]/[SEP]
  norm: z.enum(['pre', 'post']), // pre-LN (+ final LN) trains small models fast; post-LN is BERT's
  // Linear init: torch's U(±1/√fan_in); 'torch-mha' the same but the attention drawn as torch's MultiheadAttention
  // draws it (q|k|v xavier-uniform, zero q|k|v and output biases); or BERT's N(0, .02). Embeddings are N(0, .02) always.
  init: z.enum(['torch', 'torch-mha', 'bert']),
  pool: z.enum(['mean', 'cls']),
  projector: ProjectorConfig,
});
export type EncoderConfig = z.infer<typeof EncoderConfig>;

// stable-pretraining's default LeJEPA projector: d→512→2048(BN,ReLU)→2048(BN,ReLU)→512, so K=512 (docs/reference.md#text-encoders).
const spProjector: ProjectorConfig = { dims: [512, 2048, 2048, 512], norm: [false, true, true, false], act: 'relu' };

export const PRESETS = {
  cpu: {
    d: 64,
    layers: 2,
    heads: 4,
    ffn: 256,
    maxLen: 64,
    norm: 'pre',
    init: 'torch',
    pool: 'mean',
    projector: { dims: [128, 64], norm: [true, false], act: 'gelu' },
  },
  'minilm-33m': {
    d: 384,
    layers: 12,
    heads: 12,
    ffn: 1536,
    maxLen: 512,
    norm: 'post',
    init: 'bert',
    pool: 'mean',
    projector: spProjector,
  },
  'bert-base-109m': {
    d: 768,
    layers: 12,
    heads: 12,
    ffn: 3072,
    maxLen: 512,
    norm: 'post',
    init: 'bert',
    pool: 'mean',
    projector: spProjector,
  },
} as const satisfies Record<string, EncoderConfig>;
export type PresetName = keyof typeof PRESETS;
export const PresetName = z.enum(Object.keys(PRESETS) as [PresetName, ...PresetName[]]);

// Backbone parameters (no projector), for the "33M"/"109M" labels: embeddings + L blocks (+ final LN when pre-LN).
export function backboneParams(c: EncoderConfig, vocab: number): number {
  const d = c.d;
  const block = 4 * d * d + 4 * d + 2 * d * c.ffn + c.ffn + d + 4 * d;
  return vocab * d + c.maxLen * d + 2 * d + c.layers * block;
}
