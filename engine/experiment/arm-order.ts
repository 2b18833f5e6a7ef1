// The order an experiment's arms start in: every seed's view arms (good, bad), then its next-token arms, each group
// in seed order. Longest first: a view arm encodes 8 views of each photo a step (`npm run bench -- train`: 1.5x an
// NTP step on minilm-33m, 4x on the cpu preset), so the cheap arms are the ones left to fill the cores at the end.
// In seed order the last seed's view arms start late and run with cores idle beside them: on 8 cores, 4 seeds end
// 1.50x the time their CPU needs, 1.16x in this order (tests/experiment/arm-order.test.ts models it).
import { isJepaArm, type Arm } from '../../shared/train';

export const startOrder = <K extends { arm: Arm; seed: number }>(keys: K[]): K[] => [
  ...keys.filter((k) => isJepaArm(k.arm)),
  ...keys.filter((k) => !isJepaArm(k.arm)),
];
