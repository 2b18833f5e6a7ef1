// Makes an intermediate tensor of an existing ONNX model a graph output, so an embedding can be read from inside
// the network (a block's hidden states, a CNN's pooled feature). A quantized tensor (int8/uint8, QOperator models)
// is exposed through an added DequantizeLinear node, which gives its float values.
import { InputError } from '../../errors';
import { ElemType, type NodeProto, onnx, valueInfo } from './graph-builder';
import type { OnnxModel } from './model-info';

// A quantized tensor's scale and zero point: QuantizeLinear and every QLinear* op (QLinearConv, QLinearMatMul,
// QLinearAdd, QLinearGlobalAveragePool...) take the scale and zero point of their output as their last two inputs.
function quantParams(producer: NodeProto): [string, string] | null {
  const inputs = producer.input ?? [];
  const op = producer.opType ?? '';
  if ((op === 'QuantizeLinear' || op.startsWith('QLinear')) && inputs.length >= 3)
    return [inputs[inputs.length - 2], inputs[inputs.length - 1]];
  return null;
}

// The model bytes with `tensor` (or its dequantized float copy) added as an output, and that output's name.
// `model` is modified in place.
export function exposeOutput(model: OnnxModel, tensor: string, source: string): { bytes: Uint8Array; output: string } {
  const graph = model.graph!;
  const producer = (graph.node ?? []).find((n) => (n.output ?? []).includes(tensor));
  if (!producer) {
    const names = (graph.node ?? []).flatMap((n) => n.output ?? []);
    throw new InputError(
      `${source}: no tensor named '${tensor}'; outputs are ${(graph.output ?? []).map((o) => o.name).join(', ')}; ` +
        `the last of its ${names.length} intermediate tensors are ${names.slice(-6).join(', ')}`,
    );
  }
  const q = quantParams(producer);
  const output = q ? `${tensor}_dequantized` : tensor;
  if (q)
    graph.node!.push({
      opType: 'DequantizeLinear',
      name: `prh_expose_${tensor}`,
      input: [tensor, ...q],
      output: [output],
    });
  // Type only, no shape: onnxruntime infers the shape; a tensor that is not float fails at session creation.
  graph.output!.push(valueInfo(output, ElemType.FLOAT));
  return { bytes: onnx.ModelProto.encode(model).finish(), output };
}
