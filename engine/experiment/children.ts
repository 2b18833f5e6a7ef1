// An experiment's arms are child runs, one per (arm, seed), keyed like this in its checkpoint and final/ folder.
export const childKey = (arm: string, seed: number): string => `${arm}-s${seed}`;
