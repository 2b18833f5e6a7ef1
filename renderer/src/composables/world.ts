// Generating a procedural world from the lab: the preset and size the user picks, the folder it goes to (beside the
// default world, named after preset and size), and the world.generate run that writes it.
import { computed, reactive, ref } from 'vue';
import type { WorldGenerateConfig } from '../../../shared/runs';
import { startRun } from '../runs';
import { useAction } from './action';
import { useRun } from './run';

export function useWorldGeneration(worldsDir: () => string) {
  const choice = reactive({ preset: 'paper-like' as WorldGenerateConfig['preset'], size: '' }); // size: 'train,val,test' or blank
  const runId = ref('');
  const run = useRun(() => runId.value);
  const start = useAction(startRun);
  const sizeError = ref('');

  // Starts the run; resolves to the folder it writes, or undefined when it did not start.
  async function generate(): Promise<string | undefined> {
    sizeError.value = '';
    start.error.value = '';
    const dir = worldsDir();
    if (!dir) return undefined; // the datasets folder comes from the backend's list
    const parts = choice.size.split(',').map((s) => Number(s.trim()));
    const splits = choice.size.trim() ? { train: parts[0], val: parts[1], test: parts[2] } : undefined;
    if (splits && !(parts.length === 3 && parts.every((n) => Number.isInteger(n) && n >= 0))) {
      sizeError.value = 'size: three whole numbers, train,val,test (e.g. 2000,500,500)';
      return undefined;
    }
    const sep = dir.includes('\\') ? '\\' : '/';
    const out = `${dir}${sep}world-${choice.preset}${splits ? `-${parts.join('-')}` : ''}`;
    const s = await start.run({
      kind: 'world.generate',
      version: 1,
      name: `world (${choice.preset})`,
      out,
      preset: choice.preset,
      ...(splits ? { splits } : {}),
    });
    if (!s) return undefined;
    runId.value = s.id;
    return out;
  }
  return { choice, generate, ...run, error: computed(() => sizeError.value || start.error.value) };
}
