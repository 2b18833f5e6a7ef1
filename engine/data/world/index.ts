// The procedural world: scenes, their captions by annotators with nuisance, their images, presets.
export { ANNOTATORS, captionScene, type Ref, type SceneCaptions, type Token, type WorldCaption } from './captions';
export { datasetImage, generateWorld, sceneId, worldScene, type GenerateResult, type WorldScene } from './generate';
export {
  BACKGROUNDS,
  COLOURS,
  CONTENT_WORDS,
  RELATIONS,
  SHAPES,
  SIZES,
  relationHolds,
  type Concept,
  type Relation,
} from './lexicon';
export { NUISANCE, NUISANCE_LEVELS, NUISANCE_WORDS, STYLE_OF, STYLES, type NuisanceLevel } from './nuisance';
export { PRESET_NAMES, PRESETS, resolveWorld, WorldOptions, type Preset, type WorldParams } from './params';
export {
  contactSheet,
  galleryFromDataset,
  galleryJson,
  previewWorld,
  type GalleryItem,
  type GalleryRange,
} from './preview';
export {
  IMAGE_NUISANCE,
  OBJECT_KEEPS,
  objectKind,
  objectKindCount,
  renderScene,
  renderObjectPixels,
  renderScenePixels,
  renderSceneView,
  type ObjectKeep,
} from './render';
export { drawScenes, sceneKey, type Scene, type SceneObject } from './scene';
export { worldJob } from './job';
