// A ViT in the Hugging Face Dinov2Model ONNX layout: `pixel_values` [N,3,H,W] -> `last_hidden_state` [N,1+P,D]
// and `pooler_output` [N,D] (the layer-normed CLS row). Weights are named and shaped exactly as in a HF Dinov2
// state dict (torch Linear weights are [out, in]), so a real checkpoint, random weights or a model trained in
// tfjs all export through this one builder and then run through the same `dinov2` image path. Several ViTs of one
// config (an ensemble) export as one graph, their tokens side by side.
import { z } from 'zod';
import { InputError } from '../../errors';
import { TrainRng } from '../rng';
import { ElemType, GraphBuilder, valueInfo } from './graph-builder';

// k stride-2 convs shrink the image by 2^k: a stem fits a patch size only when that is the patch.
export const STEM_PATCH_RULE = 'a conv stem of k stride-2 convs needs patchSize 2^k';
export const stemFitsPatch = (c: { stem?: number[]; patchSize: number }): boolean =>
  !c.stem || 2 ** c.stem.length === c.patchSize;

export const VitConfig = z
  .object({
    imageSize: z.number().int().positive(), // square input side, px (the position table covers (imageSize/patchSize)^2 patches)
    patchSize: z.number().int().positive(),
    hidden: z.number().int().positive(), // D
    depth: z.number().int().positive(), // number of blocks
    heads: z.number().int().positive(),
    mlp: z.number().int().positive(), // MLP hidden width (4D in DINOv2)
    layerNormEps: z.number().positive().default(1e-6),
    // erf: exact GELU as DINOv2/HF; tanh: the approximation the project's tfjs transformer trains with.
    gelu: z.enum(['erf', 'tanh']).default('erf'),
    // widths of a conv stem in place of the p x p patch Conv: 3x3 stride-2 Conv + ReLU each (BatchNorm folded in),
    // log2(patchSize) of them, then a 1x1 projection Conv (engine/models/conv-stem.ts); not a HF Dinov2 option
    stem: z.array(z.number().int().positive()).min(1).optional(),
  })
  .refine((c) => c.imageSize % c.patchSize === 0, 'imageSize must be a multiple of patchSize')
  .refine(stemFitsPatch, STEM_PATCH_RULE)
  .refine((c) => c.hidden % c.heads === 0, 'hidden must be a multiple of heads');
export type VitConfig = z.infer<typeof VitConfig>;
export type VitConfigInput = z.input<typeof VitConfig>; // layerNormEps and gelu may be left to their defaults
type VitShape = Pick<VitConfig, 'imageSize' | 'patchSize' | 'hidden' | 'depth' | 'mlp' | 'stem'>;

// An embedding head in place of the CLS pooler: pooler_output = reshape(last_hidden_stateᵀ · pool) · weight + bias.
// pool: [T, R] mixes the T tokens into R columns; weight: [D·R, dims] (row d·R + r); bias: [dims].
export type PoolerHead = { pool: Float32Array; weight: Float32Array; bias: Float32Array; dims: number };

// Named weights, HF Dinov2 names -> row-major float32 data.
export type VitWeights = Record<string, Float32Array>;

// ViT-S/14 at 224 px (DINOv2-small's shape, with the position table sized for 224 rather than 518 px).
export const VIT_S14: VitConfig = {
  imageSize: 224,
  patchSize: 14,
  hidden: 384,
  depth: 12,
  heads: 6,
  mlp: 1536,
  layerNormEps: 1e-6,
  gelu: 'erf',
};

export const numPatches = (c: VitShape): number => (c.imageSize / c.patchSize) ** 2;

// Every tensor the graph reads, with its HF shape.
export function vitWeightShapes(c: VitShape): Record<string, number[]> {
  const { hidden: D, mlp: M, patchSize: p, stem } = c;
  const s: Record<string, number[]> = {
    'embeddings.cls_token': [1, 1, D],
    'embeddings.position_embeddings': [1, 1 + numPatches(c), D],
  };
  stem?.forEach((cout, l) =>
    Object.assign(s, {
      [`embeddings.patch_embeddings.stem.${l}.weight`]: [cout, l ? stem[l - 1] : 3, 3, 3],
      [`embeddings.patch_embeddings.stem.${l}.bias`]: [cout],
    }),
  );
  s['embeddings.patch_embeddings.projection.weight'] = stem ? [D, stem[stem.length - 1], 1, 1] : [D, 3, p, p];
  s['embeddings.patch_embeddings.projection.bias'] = [D];
  for (let i = 0; i < c.depth; i++) {
    const l = `encoder.layer.${i}`;
    for (const n of ['norm1', 'norm2']) Object.assign(s, { [`${l}.${n}.weight`]: [D], [`${l}.${n}.bias`]: [D] });
    for (const n of ['query', 'key', 'value'])
      Object.assign(s, {
        [`${l}.attention.attention.${n}.weight`]: [D, D],
        [`${l}.attention.attention.${n}.bias`]: [D],
      });
    Object.assign(s, {
      [`${l}.attention.output.dense.weight`]: [D, D],
      [`${l}.attention.output.dense.bias`]: [D],
      [`${l}.layer_scale1.lambda1`]: [D],
      [`${l}.mlp.fc1.weight`]: [M, D],
      [`${l}.mlp.fc1.bias`]: [M],
      [`${l}.mlp.fc2.weight`]: [D, M],
      [`${l}.mlp.fc2.bias`]: [D],
      [`${l}.layer_scale2.lambda1`]: [D],
    });
  }
  s['layernorm.weight'] = [D];
  s['layernorm.bias'] = [D];
  return s;
}

// Random but non-degenerate: every tensor (biases, norms and LayerScale included) is perturbed, so a test
// against a reference catches a mis-wired tensor. Matrices ~ N(0, 0.02^2) as in HF's initialiser.
export function randomVitWeights(c: VitShape, seed: number): VitWeights {
  const w: VitWeights = {};
  for (const [name, shape] of Object.entries(vitWeightShapes(c))) {
    const rng = TrainRng.seeded(seed, name);
    const around = /norm\d?\.weight$|layernorm\.weight$|lambda1$/.test(name) ? 1 : 0;
    const sd = around ? 0.1 : name.endsWith('.bias') ? 0.05 : 0.02;
    w[name] = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => around + sd * rng.normal());
  }
  return w;
}

function checkWeights(c: VitShape, w: VitWeights): void {
  const shapes = vitWeightShapes(c);
  const missing = Object.keys(shapes).filter((k) => !(k in w));
  if (missing.length)
    throw new InputError(`ViT weights: missing ${missing.length} tensor(s), e.g. ${missing.slice(0, 3).join(', ')}`);
  for (const [k, shape] of Object.entries(shapes)) {
    const n = shape.reduce((a, b) => a * b, 1);
    if (w[k].length !== n)
      throw new InputError(`ViT weight ${k}: expected ${n} values for shape [${shape}], got ${w[k].length}`);
  }
}

// The intermediate tensor holding the hidden states after block i ([N,1+P,D], HF `hidden_states[i+1]`),
// named so the intermediate-output path can expose it.
export const blockOutputName = (i: number): string => `encoder.layer.${i}.output`;

// weights: one ViT, or the members of an ensemble (same config, weights named `member<k>.<HF name>`): each member reads
// pixel_values on its own and last_hidden_state is their final tokens side by side, [N, 1+P, K·D] (member k's in
// columns k·D..(k+1)·D-1), the head reading all of them (without one, pooler_output is the joint CLS row [N, K·D]).
export function buildVitOnnx(
  cfg: VitConfigInput,
  weights: VitWeights | readonly VitWeights[],
  head?: PoolerHead,
): Uint8Array {
  const c = VitConfig.parse(cfg);
  const members = Array.isArray(weights) ? (weights as readonly VitWeights[]) : [weights as VitWeights];
  if (!members.length) throw new InputError('ViT ensemble: no members');
  members.forEach((m) => checkWeights(c, m));
  const { hidden: D, heads: H, patchSize: p, imageSize: S } = c;
  const dh = D / H;
  const g = new GraphBuilder();
  const shapes = vitWeightShapes(c);
  const finals = members.map((weights, k) => {
    // each member's final tokens [N, 1+P, D]
    // one ViT keeps HF's names (and bytes: a one-member graph is the plain ViT); members are prefixed
    const scope = members.length > 1 ? `member${k}.` : '';
    const w = (name: string): string => g.weight(scope + name, shapes[name], weights[name]);
    // torch Linear y = x W^T + b; the Transpose of a constant is folded by onnxruntime at load time.
    const linear = (x: string, prefix: string): string =>
      g.op('Add', [
        g.op('MatMul', [x, g.op('Transpose', [w(`${prefix}.weight`)], { perm: [1, 0] })]),
        w(`${prefix}.bias`),
      ]);
    const layerNorm = (x: string, prefix: string): string =>
      g.op('LayerNormalization', [x, w(`${prefix}.weight`), w(`${prefix}.bias`)], {
        axis: -1,
        epsilon: { f: c.layerNormEps },
      });

    // Patch embedding: Conv [N,D,g,g] -> [N,P,D] (after the stem's Conv + ReLU layers, a 1x1 Conv); CLS expanded to the
    // batch, prepended; position table added.
    let x = 'pixel_values';
    c.stem?.forEach((_, l) => {
      const conv = g.op(
        'Conv',
        [x, w(`embeddings.patch_embeddings.stem.${l}.weight`), w(`embeddings.patch_embeddings.stem.${l}.bias`)],
        { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] },
      );
      x = g.op('Relu', [conv]);
    });
    const kernel = c.stem ? 1 : p;
    const conv = g.op(
      'Conv',
      [x, w('embeddings.patch_embeddings.projection.weight'), w('embeddings.patch_embeddings.projection.bias')],
      {
        kernel_shape: [kernel, kernel],
        strides: [kernel, kernel],
      },
    );
    const patches = g.op('Transpose', [g.op('Reshape', [conv, g.ints([0, D, -1])])], { perm: [0, 2, 1] });
    const batch = g.op('Slice', [g.op('Shape', ['pixel_values']), g.ints([0]), g.ints([1])]);
    const clsShape = g.op('Concat', [batch, g.ints([1, D])], { axis: 0 });
    const cls = g.op('Expand', [w('embeddings.cls_token'), clsShape]);
    let h = g.op('Add', [g.op('Concat', [cls, patches], { axis: 1 }), w('embeddings.position_embeddings')]);

    const headShape = g.ints([0, 0, H, dh]);
    const sqrtDh = g.scalar(Math.sqrt(dh));
    const one = g.scalar(1);
    const half = g.scalar(0.5);
    // Exact GELU as (x*(Erf(x/sqrt2)+1))*0.5 with Div: the pattern onnxruntime fuses into Gelu (18.0 -> 20.3 img/s).
    // tanh GELU 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))), written as the project's tfjs encoder computes it.
    const gelu = ((): ((x: string) => string) => {
      if (c.gelu === 'erf') {
        const sqrt2 = g.scalar(Math.SQRT2);
        return (x) => g.op('Mul', [g.op('Mul', [x, g.op('Add', [g.op('Erf', [g.op('Div', [x, sqrt2])]), one])]), half]);
      }
      const kTanh = g.scalar(Math.sqrt(2 / Math.PI));
      const kCube = g.scalar(0.044715);
      return (x) => {
        const inner = g.op('Mul', [
          g.op('Add', [x, g.op('Mul', [kCube, g.op('Mul', [g.op('Mul', [x, x]), x])])]),
          kTanh,
        ]);
        return g.op('Mul', [g.op('Mul', [half, x]), g.op('Add', [one, g.op('Tanh', [inner])])]);
      };
    })();
    for (let i = 0; i < c.depth; i++) {
      const l = `encoder.layer.${i}`;
      // Attention: q,v -> [N,H,S,dh], k -> [N,H,dh,S]; scores divided by sqrt(dh) as in HF.
      const x = layerNorm(h, `${l}.norm1`);
      const heads = (name: string, perm: number[]): string =>
        g.op('Transpose', [g.op('Reshape', [linear(x, `${l}.attention.attention.${name}`), headShape])], { perm });
      const q = heads('query', [0, 2, 1, 3]);
      const k = heads('key', [0, 2, 3, 1]);
      const v = heads('value', [0, 2, 1, 3]);
      const att = g.op('Softmax', [g.op('Div', [g.op('MatMul', [q, k]), sqrtDh])], { axis: -1 });
      const ctx = g.op('Reshape', [
        g.op('Transpose', [g.op('MatMul', [att, v])], { perm: [0, 2, 1, 3] }),
        g.ints([0, 0, D]),
      ]);
      const attnOut = linear(ctx, `${l}.attention.output.dense`);
      h = g.op('Add', [h, g.op('Mul', [attnOut, w(`${l}.layer_scale1.lambda1`)])]);
      const mlpOut = linear(gelu(linear(layerNorm(h, `${l}.norm2`), `${l}.mlp.fc1`)), `${l}.mlp.fc2`);
      h = g.op('Add', [h, g.op('Mul', [mlpOut, w(`${l}.layer_scale2.lambda1`)])], {}, scope + blockOutputName(i));
    }
    return g.op(
      'LayerNormalization',
      [h, w('layernorm.weight'), w('layernorm.bias')],
      { axis: -1, epsilon: { f: c.layerNormEps } },
      `${scope}last_hidden_state`,
    );
  });
  if (members.length > 1) g.op('Concat', finals, { axis: 2 }, 'last_hidden_state');
  const last = 'last_hidden_state';
  const width = D * members.length; // the tokens' width the head reads
  const tokens = 1 + numPatches(c);
  if (head) {
    const R = head.pool.length / tokens;
    if (!Number.isInteger(R) || head.weight.length !== width * R * head.dims || head.bias.length !== head.dims)
      throw new InputError(
        `pooler head: pool ${head.pool.length}, weight ${head.weight.length}, bias ${head.bias.length} do not fit ${tokens} tokens x ${width} to ${head.dims}`,
      );
    const mixed = g.op('MatMul', [
      g.op('Transpose', [last], { perm: [0, 2, 1] }),
      g.weight('pooler.pool', [tokens, R], head.pool),
    ]); // [N, K·D, R]
    const flat = g.op('Reshape', [mixed, g.ints([0, width * R])]);
    g.op(
      'Add',
      [
        g.op('MatMul', [flat, g.weight('pooler.weight', [width * R, head.dims], head.weight)]),
        g.weight('pooler.bias', [head.dims], head.bias),
      ],
      {},
      'pooler_output',
    );
  } else {
    g.op('Gather', [last, g.ints([0], 'cls_index')], { axis: 1 }, 'pooler_gather');
    g.op('Squeeze', ['pooler_gather', g.ints([1])], {}, 'pooler_output');
  }

  return g.encode(
    [valueInfo('pixel_values', ElemType.FLOAT, ['batch_size', 3, S, S])],
    [
      valueInfo('last_hidden_state', ElemType.FLOAT, ['batch_size', tokens, width]),
      valueInfo('pooler_output', ElemType.FLOAT, ['batch_size', head ? head.dims : width]),
    ],
    'dinov2_vit',
    JSON.stringify({ layout: 'hf-dinov2', config: c, ...(members.length > 1 && { members: members.length }) }),
  );
}
