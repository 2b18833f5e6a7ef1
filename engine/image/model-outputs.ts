// What an image model offers as the embedding, for the New experiment screen: its graph outputs, and the
// intermediate tensors a classifier reads its features from. Walking back from each output through the classifier
// (MatMul / Gemm, their quantized forms, Add, Dequantize) and the reshapes before it finds the pooled feature:
// for MobileNetV2 int8, output <- ... <- QLinearMatMul <- Reshape <- 464_quantized (the 1,280-d pooled feature).
import { readFileSync } from 'node:fs';
import type { ImageModelInfo, ModelTensor } from '../../shared/api';
import { InputError } from '../errors';
import { decodeModel, describeModel, formatTensor, type OnnxModel } from '../models/onnx';
import { detectPreset } from './spec';

const HEAD_OPS = new Set([
  'MatMul',
  'Gemm',
  'QLinearMatMul',
  'MatMulInteger',
  'QGemm',
  'Add',
  'QLinearAdd',
  'DequantizeLinear',
  'QuantizeLinear',
  'Softmax',
  'Identity',
]);
const SHAPE_OPS = new Set(['Reshape', 'Flatten', 'Squeeze']);
const MAX_STEPS = 12;

// The tensor fed to the classifier behind `output`, and the ops walked through on the way (nearest first).
function featureBefore(model: OnnxModel, output: string): ModelTensor | null {
  const producer = new Map((model.graph!.node ?? []).flatMap((n) => (n.output ?? []).map((o) => [o, n] as const)));
  let t = output;
  let passedHead = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    const n = producer.get(t);
    if (!n) return null;
    const op = n.opType ?? '';
    if (HEAD_OPS.has(op)) passedHead ||= /MatMul|Gemm/.test(op);
    else if (SHAPE_OPS.has(op)) {
      if (passedHead)
        return {
          name: n.input![0],
          detail: `input of ${op} before the classifier (${producer.get(n.input![0])?.opType ?? 'graph input'})`,
        };
    } else return passedHead ? { name: t, detail: `produced by ${op}, read by the classifier` } : null;
    t = n.input![0];
  }
  return null;
}

export function describeImageModel(path: string): ImageModelInfo {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new InputError(`${path}: cannot read the model (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const model = decodeModel(bytes, path);
  const info = describeModel(model);
  const features = info.outputs
    .flatMap((o) => featureBefore(model, o.name) ?? [])
    .filter((f, i, xs) => xs.findIndex((x) => x.name === f.name) === i);
  return {
    path,
    preset: detectPreset(info),
    inputs: info.inputs.map((t) => ({ name: t.name, detail: formatTensor(t) })),
    outputs: info.outputs.map((t) => ({ name: t.name, detail: formatTensor(t) })),
    features,
  };
}
