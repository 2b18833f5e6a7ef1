// Builds an ONNX ModelProto node by node with onnx-proto, so the project writes its own encoders without Python.
import onnxProto from 'onnx-proto';

export const { onnx } = onnxProto;
export type NodeProto = onnxProto.onnx.INodeProto;
export type TensorProto = onnxProto.onnx.ITensorProto;
export type ValueInfoProto = onnxProto.onnx.IValueInfoProto;

const { AttributeType } = onnx.AttributeProto;
export const ElemType = onnx.TensorProto.DataType;

// A dimension is a fixed size or a symbolic name such as 'batch_size'.
export type Dim = number | string;
// A non-integer number is a FLOAT attribute; `{ f }` forces FLOAT for a whole number such as 1.0.
export type AttrValue = number | number[] | string | { f: number };

const bytesOf = (a: Float32Array | BigInt64Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export function floatTensor(name: string, dims: number[], data: Float32Array): TensorProto {
  return { name, dims, dataType: ElemType.FLOAT, rawData: bytesOf(data) };
}

export function int64Tensor(name: string, dims: number[], values: number[]): TensorProto {
  return { name, dims, dataType: ElemType.INT64, rawData: bytesOf(BigInt64Array.from(values.map(BigInt))) };
}

export function valueInfo(name: string, elemType: number, dims?: Dim[]): ValueInfoProto {
  const shape = dims && { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) };
  return { name, type: { tensorType: { elemType, ...(shape ? { shape } : {}) } } };
}

function attribute(name: string, v: AttrValue): onnxProto.onnx.IAttributeProto {
  if (typeof v === 'string') return { name, type: AttributeType.STRING, s: new TextEncoder().encode(v) };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { name, type: AttributeType.INT, i: v } : { name, type: AttributeType.FLOAT, f: v };
  if (Array.isArray(v)) return { name, type: AttributeType.INTS, ints: v };
  return { name, type: AttributeType.FLOAT, f: v.f };
}

export class GraphBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  private count = 0;

  // A float initializer; returns its name for use as a node input.
  weight(name: string, dims: number[], data: Float32Array): string {
    this.initializers.push(floatTensor(name, dims, data));
    return name;
  }

  ints(values: number[], name = `const_i64_${this.count++}`): string {
    this.initializers.push(int64Tensor(name, [values.length], values));
    return name;
  }

  // A scalar float constant (rank 0), e.g. the 0.5 of GELU.
  scalar(value: number, name = `const_f32_${this.count++}`): string {
    this.initializers.push(floatTensor(name, [], Float32Array.of(value)));
    return name;
  }

  // One node with one output; `output` names it (so it can later be exposed as an intermediate), else it is numbered.
  op(opType: string, inputs: string[], attrs: Record<string, AttrValue> = {}, output?: string): string {
    const out = output ?? `${opType.toLowerCase()}_${this.count++}`;
    this.nodes.push({
      opType,
      name: `${opType}_${this.nodes.length}`,
      input: inputs,
      output: [out],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return out;
  }

  // IR 8 / opset 17: the first opset with LayerNormalization, and what onnxruntime 1.30 and torch.onnx both handle.
  encode(inputs: ValueInfoProto[], outputs: ValueInfoProto[], graphName: string, docString = ''): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 17 }],
      producerName: 'prh-workbench',
      docString,
      graph: { name: graphName, node: this.nodes, initializer: this.initializers, input: inputs, output: outputs },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
