// What an ONNX file declares: its graph inputs and outputs (name, element type, dims), read with onnx-proto
// before a session exists (so an intermediate tensor can be exposed first).
import type onnxProto from 'onnx-proto';
import { InputError } from '../../errors';
import { type Dim, ElemType, onnx } from './graph-builder';

export type OnnxModel = onnxProto.onnx.ModelProto;
export type TensorInfo = { name: string; type: string; dims: Dim[] | null }; // dims null: rank unknown

export type ModelInfo = {
  inputs: TensorInfo[]; // graph inputs that are not initializers (older exporters list weights as inputs too)
  outputs: TensorInfo[];
};

export function decodeModel(bytes: Uint8Array, source: string): OnnxModel {
  let model: OnnxModel;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (err) {
    throw new InputError(`${source}: not an ONNX model (${(err as Error).message})`);
  }
  if (!model.graph) throw new InputError(`${source}: ONNX file has no graph`);
  return model;
}

// 'float32' for FLOAT, 'uint8' for UINT8 ..., matching onnxruntime's tensor type names.
export const elemTypeName = (t: number): string =>
  ({
    [ElemType.FLOAT]: 'float32',
    [ElemType.DOUBLE]: 'float64',
    [ElemType.FLOAT16]: 'float16',
    [ElemType.BFLOAT16]: 'bfloat16',
  })[t] ?? (ElemType[t] ?? 'unknown').toLowerCase();

function tensorInfo(v: onnxProto.onnx.IValueInfoProto): TensorInfo {
  const tt = v.type?.tensorType;
  const dims =
    tt?.shape?.dim?.map((d) => (d.dimParam ? d.dimParam : d.dimValue != null ? Number(d.dimValue) : '?')) ?? null;
  return { name: v.name ?? '', type: tt ? elemTypeName(tt.elemType ?? 0) : 'non-tensor', dims };
}

export function describeModel(model: OnnxModel): ModelInfo {
  const g = model.graph!;
  const weights = new Set((g.initializer ?? []).map((t) => t.name));
  return {
    inputs: (g.input ?? []).filter((v) => !weights.has(v.name)).map(tensorInfo),
    outputs: (g.output ?? []).map(tensorInfo),
  };
}

export const formatTensor = (t: TensorInfo): string =>
  `${t.name} (${t.type}${t.dims ? ` [${t.dims.join(', ')}]` : ''})`;
