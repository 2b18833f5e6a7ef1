// The process that builds one member of an ensemble world encoder (ensemble.ts, buildEnsemble): the one-ViT recipe
// (and where its checkpoints go) in, its CLS graph (base64) and build manifest out; its progress lines on stderr, as
// `prh world build-encoder` logs.
import '../../source-maps'; // first: before any package loads
import { answerParent } from '../../child';
import { buildVit } from './build';
import { MemberInput } from './ensemble';

// a member outlives a killed build by an hour of training unless it notices: its parent gone, it stops
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(1), 5_000).unref();

await answerParent(async (input: unknown) => {
  const { recipe, checkpoints } = MemberInput.parse(input);
  const log = (t: string) => process.stderr.write(`${t}\n`);
  const built = await buildVit(
    recipe,
    {
      log,
      onWindow: (step, mean, window) =>
        log(`step ${step}/${recipe.jepa.steps}: loss ${mean.toFixed(4)} (mean of the last ${window})`),
    },
    checkpoints,
  );
  return { bytes: Buffer.from(built.bytes).toString('base64'), manifest: built.manifest };
});
