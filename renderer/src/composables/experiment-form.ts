// The New experiment form as the user edits it, the ExperimentConfig input it stands for, and what blocks starting
// it: the backend's own schema's issues and a dataset that does not exist yet.
import { computed, reactive, type Ref } from 'vue';
import type { DatasetInfo } from '../../../shared/api';
import { ExperimentConfig, type ExperimentConfigInput } from '../../../shared/experiment';
import { PRESET_NAMES, type Arm } from '../../../shared/train';

export const defaultForm = () => ({
  name: '',
  data: '',
  model: 'world' as string, // 'world' or an .onnx path
  modelKind: 'world' as 'world' | 'onnx',
  onnxPreset: '' as '' | 'dinov2' | 'imagenet-cnn' | 'custom',
  arms: ['good', 'bad', 'ntp'] as Arm[],
  preset: 'cpu' as (typeof PRESET_NAMES)[number],
  epochs: 8,
  batch: 64,
  loss: 'sp' as 'sp' | 'paper',
  lambdaMode: 'lamb' as 'lamb' | 'lambEff',
  lamb: 0.02,
  lambEff: 10.24,
  seeds: '0',
  k: 10,
  bootstrap: 2000,
});
export type ExperimentForm = ReturnType<typeof defaultForm>;

export function useExperimentForm(datasets: Ref<DatasetInfo[]>) {
  const form = reactive(defaultForm());
  const seedList = computed(() => form.seeds.split(',').map((s) => s.trim()).filter(Boolean).map(Number));
  const config = computed<ExperimentConfigInput>(() => ({
    kind: 'experiment',
    version: 1,
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    data: form.data,
    image: form.modelKind === 'world' ? { model: 'world' } : { model: form.model, ...(form.onnxPreset ? { preset: form.onnxPreset } : {}) },
    arms: [...form.arms],
    seeds: seedList.value,
    train: { preset: form.preset, epochs: form.epochs, batch: form.batch, loss: form.loss, ...(form.lambdaMode === 'lamb' ? { lamb: form.lamb } : { lambEff: form.lambEff }) },
    eval: { k: form.k, bootstrap: form.bootstrap },
  }));
  const check = computed(() => ExperimentConfig.safeParse(config.value));
  const issues = computed(() => (check.value.success ? [] : check.value.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(config)', message: i.message }))));
  const selectedInfo = computed(() => datasets.value.find((d) => d.path === form.data));
  const dataIssue = computed(() => (!form.data ? 'choose a dataset' : selectedInfo.value && !selectedInfo.value.exists ? 'this dataset is not generated yet' : ''));
  // Keep a listed dataset selected: the first generated one when the current choice is not in the list.
  const pickListed = () => {
    if (!form.data || !datasets.value.some((d) => d.path === form.data)) form.data = (datasets.value.find((d) => d.exists) ?? datasets.value[0])?.path ?? '';
  };
  const ready = computed(() => check.value.success && !dataIssue.value);
  return { form, config, seedList, issues, selectedInfo, dataIssue, pickListed, ready };
}
