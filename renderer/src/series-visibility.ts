// Which series are hidden, by what they are (shared/curves.ts seriesKey: an arm and seed), for every chart of the
// app: hiding "bad (seed 0)" on one chart of a page hides it on the others, and on the Compare screen opened next.
import { reactive } from 'vue';

export const hiddenSeries = reactive(new Set<string>());
export const toggleSeries = (key: string) => (hiddenSeries.has(key) ? hiddenSeries.delete(key) : hiddenSeries.add(key));
