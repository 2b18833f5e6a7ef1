// An experiment's run folder, one module for the experiment that writes it and the image drop that reads it:
//   image/{val,test}.npy (+ ids), image/encoder.json                     the frozen image side (EncoderRecord)
//   arms/<train run>/                                                     one child train run per (arm, seed)
//   final/<arm>-s<seed>/{w.npy,image-mean.npy,text-mean.npy,alignment.json}   each arm's map, for the image drop
//   artifacts/result.json                                                 the ExperimentResult
// A 2x2 (config.imageViews) trains its image encoders first; the first image arm's side is image/ (the text arms'
// per-epoch curves, the arms table and the image drop use it), each other arm's is image-arms/<arm>/:
//   image-arms/<arm>/{encoder.onnx,training.json}                        the trained ViT (HF Dinov2 layout) and its record
import { join } from 'node:path';
import { z } from 'zod';
import { GpuAdapter } from '../../shared/gpu';
import { Arm } from '../../shared/train';
import { ImageSpec, Preset } from '../image';
import { EncoderConfig } from '../models';

// Names an arm's child run in the experiment's checkpoint and its final/ folder.
export const childKey = (arm: string, seed: number): string => `${arm}-s${seed}`;

// image/encoder.json: the model and spec the image side was embedded with; the image drop embeds through the same.
// Precomputed embeddings: model is the .npy, sha256 its bytes', and there is no spec (nothing to embed a drop with).
export const EncoderRecord = z.object({
  model: z.string(),
  sha256: z.string(),
  preset: z.union([Preset, z.literal('precomputed')]),
  spec: ImageSpec.nullable(),
  dim: z.number().int(),
  skipped: z.number().int(), // photos whose image could not be read
  // where the encoder ran (absent in experiments embedded before devices were recorded)
  device: z.enum(['cpu', 'cuda', 'webgpu']).optional(),
  adapter: GpuAdapter.nullable().optional(),
});
export type EncoderRecord = z.infer<typeof EncoderRecord>;

// The finished arms, as artifacts/result.json (ExperimentResult) lists them: the checkpoint each was scored at.
export const FinishedArms = z.object({
  arms: z
    .array(z.object({ arm: z.string(), seed: z.number(), runId: z.string(), epoch: z.number().int().min(1) }))
    .min(1),
});

export type ExperimentLayout = ReturnType<typeof experimentLayout>;
export function experimentLayout(dir: string) {
  const image = join(dir, 'image');
  return {
    image: {
      dir: image,
      val: join(image, 'val.npy'),
      test: join(image, 'test.npy'),
      encoder: join(image, 'encoder.json'),
    },
    arms: join(dir, 'arms'), // a RunStore
    imageArm(arm: string, first: boolean) {
      const d = join(dir, 'image-arms', arm);
      const side = first ? image : d;
      return {
        dir: d,
        onnx: join(d, 'encoder.onnx'),
        training: join(d, 'training.json'),
        side: {
          dir: side,
          val: join(side, 'val.npy'),
          test: join(side, 'test.npy'),
          encoder: join(side, 'encoder.json'),
        },
      };
    },
    result: join(dir, 'artifacts', 'result.json'),
    final(arm: string, seed: number) {
      const d = join(dir, 'final', childKey(arm, seed));
      return {
        dir: d,
        w: join(d, 'w.npy'),
        imageMean: join(d, 'image-mean.npy'),
        textMean: join(d, 'text-mean.npy'),
        alignment: join(d, 'alignment.json'),
      };
    },
  };
}

// What an arm's train run leaves that the experiment and the image drop read (written by engine/train).
export const ResolvedArm = z.object({ encoder: EncoderConfig, vocab: z.number().int(), arm: Arm }); // resolved-config.json, in part
export function armLayout(runDir: string) {
  return {
    tokenizer: join(runDir, 'tokenizer.json'),
    resolvedConfig: join(runDir, 'resolved-config.json'),
    embeddings: (epoch: number) => ({
      val: join(runDir, 'embeddings', `epoch-${epoch}`, 'val.npy'),
      test: join(runDir, 'embeddings', `epoch-${epoch}`, 'test.npy'),
    }),
  };
}
