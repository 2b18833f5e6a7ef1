// The datasets the lab knows (the default world, generated or not, and folders the user opened), reloadable.
import { computed, ref } from 'vue';
import type { DatasetInfo } from '../../../shared/api';
import { backend } from '../backend';
import { useAction } from './action';

export function useDatasets() {
  const datasets = ref<DatasetInfo[]>([]);
  const load = useAction(() => backend.call('datasets', {}));
  async function reload(): Promise<DatasetInfo[] | undefined> {
    const list = await load.run();
    if (list) datasets.value = list;
    return list;
  }
  // The folder of the default world: new worlds are generated beside it.
  const worldsDir = computed(() => datasets.value[0]?.path.replace(/[\\/][^\\/]+$/, '') ?? '');
  return { datasets, error: load.error, reload, worldsDir };
}
