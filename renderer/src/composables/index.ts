// What screens and components share beyond the run store: backend actions, exports, followed runs, the routed
// experiment, datasets, world generation, form templates and the New experiment form.
export { useAction } from './action';
export { useExport } from './export';
export { useRun } from './run';
export { useRoutedRun } from './route';
export { useDatasets } from './datasets';
export { useWorldGeneration } from './world';
export { useTemplates } from './templates';
export { type ExperimentForm, fillWorldRates, useExperimentForm } from './experiment-form';
