// The maps that can be fitted: Procrustes, and its two controls (a random orthonormal map; Procrustes on shuffled
// pairs). Apart from maps.ts so that `prh` lists them without loading the linear algebra.
export const MapKind = ['procrustes', 'random', 'shuffled'] as const;
export type MapKind = (typeof MapKind)[number];
