// `prh embed`: a dataset's images through a frozen ONNX image encoder into an .npy (+ ids + spec sidecars).
import { resolve } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import { Split } from '../../shared/dataset';
import { ImageDevice, describeAdapter } from '../../shared/gpu';
import { defaultCacheDir } from '../image/cache';
import { ImageSpec, Pool, Preset, specOverrides } from '../image/spec';
import { Cancelled } from '../runs/job';
import { EXIT, parseFlags, printTable } from './output';

const Rgb = z
  .string()
  .transform((s) => s.split(',').map(Number))
  .pipe(z.tuple([z.number(), z.number(), z.number()]));
const Int = z.coerce.number().int().positive();

const EmbedFlags = z.object({
  model: z.string().min(1),
  data: z.string().min(1),
  images: z.string().optional(),
  out: z.string().regex(/\.(npy|safetensors)$/, 'must end in .npy or .safetensors'),
  preset: Preset.optional(),
  split: Split.optional(),
  input: z.string().optional(),
  output: z.string().optional(),
  pool: Pool.optional(),
  prefixTokens: z.coerce.number().int().nonnegative().optional(),
  size: Int.optional(),
  resize: Int.optional(),
  interpolation: ImageSpec.shape.interpolation.optional(),
  mean: Rgb.optional(),
  std: Rgb.optional(),
  channels: z.enum(['rgb', 'bgr']).optional(),
  range: z.enum(['0-1', '0-255']).optional(),
  batch: Int.default(16),
  threads: z.coerce.number().int().nonnegative().default(0),
  device: ImageDevice.default('auto'),
  onBadImage: z.enum(['skip', 'fail']).default('fail'),
  cacheDir: z.union([z.string(), z.literal(false)]).optional(),
  json: z.boolean().optional(),
});

export function registerImage(program: Command, setExit: (code: number) => void = (c) => (process.exitCode = c)): void {
  program
    .command('embed')
    .description('embed the images of a dataset (or a folder of images) with an ONNX image encoder')
    .requiredOption('--model <file>', 'the encoder, .onnx')
    .requiredOption(
      '--data <path>',
      'dataset folder (dataset.json + images/), Karpathy/Flickr30k/COCO caption files, or a plain folder of images',
    )
    .option('--images <dir>', 'the image folder, when it is not beside the caption files')
    .requiredOption('--out <file>', 'output .npy (writes <out>.ids.json and <out>.spec.json beside it)')
    .addOption(
      new Option(
        '--preset <name>',
        'dinov2 | imagenet-cnn | custom (default: detected from input/output names)',
      ).choices(Preset.options),
    )
    .addOption(new Option('--split <name>', 'only this split of the dataset').choices(Split.options))
    .option('--input <name>', 'graph input to feed')
    .option('--output <tensor>', 'tensor holding the embedding: a graph output or any intermediate tensor')
    .addOption(new Option('--pool <how>', 'none (flatten) | cls (token 0) | mean-patches').choices(Pool.options))
    .option('--prefix-tokens <n>', 'tokens before the patch tokens (CLS + registers), for mean-patches')
    .option('--size <px>', 'centre-crop side fed to the model')
    .option('--resize <px>', 'shorter side after resizing, before the crop')
    .addOption(new Option('--interpolation <kind>', 'resampling filter').choices(['nearest', 'bilinear', 'bicubic']))
    .option('--mean <r,g,b>', 'per-channel mean (units of --range)')
    .option('--std <r,g,b>', 'per-channel std')
    .addOption(new Option('--channels <order>', 'channel order the model expects').choices(['rgb', 'bgr']))
    .addOption(new Option('--range <r>', 'pixel scale before mean/std').choices(['0-1', '0-255']))
    .option('--batch <n>', 'images per inference call', '16')
    .option('--threads <n>', 'CPU threads for onnxruntime (0 = one per core)', '0')
    .addOption(
      new Option(
        '--device <d>',
        'auto: CUDA when its provider is installed, else WebGPU on a real GPU, else CPU; webgpu: any WebGPU adapter (also an emulated one)',
      )
        .choices(ImageDevice.options)
        .default('auto'),
    )
    .addOption(
      new Option('--on-bad-image <policy>', 'unreadable files: skip (and count) or fail the job')
        .choices(['skip', 'fail'])
        .default('fail'),
    )
    .option('--cache-dir <dir>', `embedding cache (default ${defaultCacheDir()})`)
    .option('--no-cache-dir', 'do not read or write the cache')
    .option('--json', 'print one JSON document')
    .action(async (raw: Record<string, unknown>) => {
      const o = parseFlags(EmbedFlags, raw);
      // onnxruntime and the encoders (engine/cli/main.ts)
      const { embedCached, listImages, openImageEncoder, writeImageEmbeddings } = await import('../image');
      const overrides = specOverrides(o);
      const images = listImages(o.data, o.split, o.images);
      const enc = await openImageEncoder(o.model, {
        preset: o.preset,
        overrides,
        device: o.device,
        threads: o.threads,
        log: (m) => console.error(m),
      });
      if (enc.fixedBatch !== null && enc.fixedBatch !== o.batch)
        console.error(
          `${o.model}: the model takes exactly ${enc.fixedBatch} image(s) per call; embedding ${enc.fixedBatch} at a time`,
        );
      const bar =
        !o.json && process.stderr.isTTY
          ? new SingleBar(
              { format: 'embed [{bar}] {value}/{total} images {eta}s', stream: process.stderr },
              Presets.shades_classic,
            )
          : null;
      bar?.start(images.length, 0);
      const abort = new AbortController();
      const onInt = () => abort.abort();
      process.once('SIGINT', onInt);
      const t0 = performance.now();
      try {
        const cacheDir = o.cacheDir === false ? null : resolve(o.cacheDir ?? defaultCacheDir());
        const res = await embedCached(enc, images, cacheDir, {
          batchSize: o.batch,
          onBadImage: o.onBadImage,
          signal: abort.signal,
          onProgress: (done) => bar?.update(done),
        });
        bar?.stop();
        writeImageEmbeddings(o.out, res, res.record);
        const seconds = (performance.now() - t0) / 1000;
        const summary = {
          out: resolve(o.out),
          rows: res.emb.rows,
          dim: res.emb.dim,
          skipped: res.skipped.length,
          cached: res.cached,
          device: enc.device,
          ...(enc.adapter && { adapter: describeAdapter(enc.adapter) }),
          preset: enc.spec.preset,
          tensor: enc.spec.embedding.tensor,
          pool: enc.spec.embedding.pool,
          seconds: Number(seconds.toFixed(2)),
          imagesPerSecond: res.cached ? null : Number((images.length / seconds).toFixed(2)),
        };
        if (o.json)
          console.log(
            JSON.stringify({
              ...summary,
              gpu: enc.adapter,
              spec: enc.spec,
              modelSha256: enc.modelSha256,
              skippedFiles: res.skipped,
            }),
          );
        else {
          printTable([summary]);
          for (const s of res.skipped.slice(0, 10)) console.error(`skipped ${s.reason}`);
          if (res.skipped.length > 10)
            console.error(`... and ${res.skipped.length - 10} more skipped (see ${o.out}.spec.json)`);
        }
        setExit(EXIT.ok);
      } catch (err) {
        bar?.stop();
        if (!(err instanceof Cancelled)) throw err;
        if (o.json) console.log(JSON.stringify({ cancelled: true, message: err.message }));
        else console.error(err.message);
        setExit(EXIT.cancelled);
      } finally {
        process.off('SIGINT', onInt);
        await enc.release();
      }
    });
}
