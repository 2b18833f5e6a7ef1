import { prop3Grid } from './engine/theory/grid';
for (const stickiness of [0.79, 0.8]) {
  let a = 0, b = 0; const S = 15;
  for (let seed = 0; seed < S; seed++) { const res = prop3Grid({ worldKind: 'clustered', stickiness, seed, grid: 41 }); a += res.summary.meanAlphaK; b += res.summary.below; }
  console.log(stickiness, (a / S).toFixed(4), b / S);
}
