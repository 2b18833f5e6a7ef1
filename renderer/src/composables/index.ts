// What screens and components share beyond the run store: backend actions, exports, followed runs, the routed
// experiment and the datasets list.
export { useAction } from './action';
export { useExport } from './export';
export { useRun } from './run';
export { useRoutedRun } from './route';
export { useDatasets } from './datasets';
