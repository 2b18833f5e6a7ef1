// Training: LeJEPA (good/bad views) and NTP arms on the tfjs encoder, with checkpoints and per-epoch embeddings.
export {
  train,
  buildModel,
  type TrainHooks,
  type TrainOutcome,
  type TrainSetup,
  type EpochEmbeddings,
  type EpochSummary,
  type StepValues,
} from './loop';
export {
  initBackend,
  backendInfo,
  registerSegmentSum,
  BACKENDS,
  type BackendChoice,
  type BackendInfo,
} from './backend';
export { sigreg, sigregOp, sigregGradient, sigregDirections, sigregTf } from './sigreg';
export { invariance } from './invariance';
export { ntpLoss } from './ntp';
export { lrAt, createAdamW, adamwStep, clipGradients, optimizerStep, type AdamW, type Schedule } from './optimizer';
export {
  saveCheckpoint,
  loadCheckpoint,
  listCheckpoints,
  selectCheckpoint,
  readState,
  CheckpointState,
} from './checkpoint';
export { buildCorpus, type Corpus } from './corpus';
export type { JepaLoss } from './lejepa';
export {
  drawBatch,
  viewBatch,
  textBatch,
  jepaLoss,
  textLoss,
  stepLoss,
  type BatchSource,
  type Model,
  type Special,
} from './objective';
export { embedSplit, embedCaptions, type SplitEmbeddings } from './embed';
export { photoViews, type DecodedView } from './photo-views';
export { trainJob, type TrainJobContext } from './job';
export {
  ImageJepaRecipe,
  calibrateStemOn,
  IMAGE_JEPA_BASE,
  initImageJepa,
  initImageVit,
  imageJepaLoss,
  imageLamb,
  stepImages,
  trainImageJepa,
  type ImageStep,
  type ImageJepaHooks,
  type ImageJepaHistory,
  type ViewSource,
} from './image-jepa';
export type { StepCheckpoints } from './step-checkpoints';
export { infoNce } from './infonce';
export {
  OBJECT_DRAWS,
  drawObjects,
  firstRenders,
  objectPool,
  renderPool,
  renderViewBatch,
  type ObjectDraw,
  type RenderPool,
} from './render-views';
export {
  ViewRecipe,
  IMAGENET_MEAN,
  IMAGENET_STD,
  drawView,
  renderView,
  imageViewBatch,
  normalised,
  type ImageSet,
  type ViewDraw,
} from './image-views';
