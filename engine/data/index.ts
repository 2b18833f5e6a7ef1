// Datasets in the one layout (dataset.json + images/), the readers of real data into it, and the procedural world.
export { readCaptionTable, type TableOptions } from './caption-table';
export { readCoco, type CocoOptions } from './coco';
export { readFlickr30k, type Flickr30kOptions } from './flickr30k';
export { readFlickr8k } from './flickr8k';
export { checkImageFiles, isImageFile } from './image-files';
export { importDataset, type ImportOptions } from './import';
export { HEAD_BYTES, imageFileProblem, MAX_PIXELS, TAIL_BYTES } from './image-file';
export {
  DataFingerprint,
  fingerprint,
  fingerprintChanges,
  FINGERPRINT_FILE,
  readFingerprint,
  writeFingerprint,
} from './fingerprint';
export { formatInspection, inspectDataset, words, type Inspection } from './inspect';
export { readKarpathy } from './karpathy';
export { DATASET_FILE, IMAGES_DIR, isDatasetDir, readDataset, writeDataset } from './layout';
export { readMulti30k } from './multi30k';
export { isDatasetFolder, openDataset, type Format, type OpenedDataset, type OpenOptions } from './open';
export { seededSplit, seededSubset, type SplitOptions } from './split';
export * from './world/index';
