// One run as a screen follows it: its state, latest progress, metrics and an ETA, all live from the run store's
// events; `id` may change (or be empty) while the screen is open.
import { computed, ref, watch } from 'vue';
import { eta, observe, type Rate } from '../experiment';
import { metrics, progress as progressOf, runs } from '../runs';

export function useRun(id: () => string | null | undefined) {
  const state = computed(() => {
    const i = id();
    return i ? runs.get(i) : undefined;
  });
  const progress = computed(() => {
    const i = id();
    return (i ? progressOf.get(i) : undefined) ?? state.value?.progress ?? undefined;
  });
  const records = computed(() => {
    const i = id();
    return (i ? metrics.get(i) : undefined) ?? [];
  });
  const active = computed(() => state.value?.status === 'running' || state.value?.status === 'queued');
  const rate: Rate = { samples: [], phase: '' };
  const etaText = ref('');
  watch(id, () => {
    rate.samples = [];
    etaText.value = '';
  });
  watch(progress, (p) => {
    if (p) {
      observe(rate, p);
      etaText.value = eta(rate, p);
    }
  });
  return { state, progress, records, active, eta: etaText };
}
