// What the New experiment screen lists for an image model: outputs, and the feature tensor a classifier reads
// (found by walking back from the output through the classifier and the reshape before it).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeImageModel } from '../../engine/image';
import { InputError } from '../../engine/errors';

const root = resolve(import.meta.dirname, '..', '..');
const mobilenet = resolve(root, '..', 'shared', 'models', 'mobilenetv2-12-int8.onnx');

describe('describeImageModel', () => {
  it('the DINOv2-layout world encoder: its two outputs, and the region features its whitening head reads', () => {
    const m = describeImageModel(join(root, 'resources', 'world-encoder.onnx'));
    expect(m.preset).toBe('dinov2');
    expect(m.inputs.map((t) => t.name)).toEqual(['pixel_values']);
    expect(m.outputs.map((t) => t.name).sort()).toEqual(['last_hidden_state', 'pooler_output']);
    // pooler_output = Add(MatMul(Reshape(regions), W), b): the walk back stops at the CLS + region means [N, 64, 17]
    expect(m.features).toHaveLength(1);
    expect(m.features[0].detail).toBe('input of Reshape before the classifier (MatMul)');
    expect(() => describeImageModel(join(root, 'nope.onnx'))).toThrow(InputError);
  });
  it.skipIf(!existsSync(mobilenet))(
    'MobileNetV2 int8 (../shared/models): the 1,280-d pooled feature 464_quantized before the classifier',
    () => {
      const m = describeImageModel(mobilenet);
      expect(m).toMatchObject({
        preset: 'imagenet-cnn',
        outputs: [{ name: 'output', detail: 'output (float32 [batch_size, 1000])' }],
      });
      expect(m.features).toEqual([
        { name: '464_quantized', detail: 'input of Reshape before the classifier (QLinearGlobalAveragePool)' },
      ]);
    },
  );
});
