// The paper's experiment end to end: the frozen image side, the arms as child train runs scored every epoch,
// the comparison with CIs, controls and sweeps, the report, and the image drop on a finished experiment.
export { experimentJob } from './job';
export { armJob } from './epoch-eval';
export { matchDroppedImages, ownCaptions, topMatches } from './drop';
export { openExperimentData } from './protocol';
export { preflightExperimentImages } from './images';
export { sweepExperiment } from './sweep';
export { splitCeiling, type Ceiling } from './ceiling';
