// Warnings where a result cannot mean much: a map fitted on fewer pairs than its free parameters need, and
// embeddings that are all zero; printed with the result and kept in its JSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeNpy } from '../../engine/embeddings';
import { TrainRng } from '../../engine/models';

const prh = join(import.meta.dirname, '..', '..', 'bin', 'prh.js');
const home = mkdtempSync(join(tmpdir(), 'prh-warnings-'));
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [prh, ...args], { env: { ...process.env, PRH_HOME: home }, encoding: 'utf8' });

// 80 pairs: image [80, 16], text [80, 8] = image · a fixed [16, 8] projection + noise, so the map has signal.
const N = 80,
  P = 16,
  Q = 8;
const rng = TrainRng.seeded(1, 'warnings');
const img = Float32Array.from({ length: N * P }, () => rng.normal());
const proj = Float32Array.from({ length: P * Q }, () => rng.normal());
const txt = new Float32Array(N * Q);
for (let i = 0; i < N; i++)
  for (let j = 0; j < Q; j++) {
    let s = 0.1 * rng.normal();
    for (let d = 0; d < P; d++) s += img[i * P + d] * proj[d * Q + j];
    txt[i * Q + j] = s;
  }
const file = (name: string, rows: number, dim: number, data: Float32Array) => {
  const p = join(home, name);
  writeNpy(p, { rows, dim, data });
  return p;
};
const image = file('image.npy', N, P, img);
const text = file('text.npy', N, Q, txt);
const zeros = file('zeros.npy', N, Q, new Float32Array(N * Q));

// A [16, 8] map with orthonormal columns: 16·8 − 8·9/2 = 92 free parameters; each pair gives 8 equations: 12 pairs.
const FREE = P * Q - (Q * (Q + 1)) / 2;
const NEED = Math.ceil(FREE / Q);

const align = (text: string, fit: string, ...more: string[]) =>
  cli(
    'align',
    '--image',
    image,
    '--text',
    text,
    '--fit',
    fit,
    '--test',
    '40:80',
    '--bootstrap',
    '200',
    '--k',
    '5',
    ...more,
  );

describe('prh align warnings', () => {
  it('warns when the map is fitted on fewer pairs than its free parameters need', () => {
    expect([FREE, NEED]).toEqual([92, 12]);
    const few = align(text, `0:${NEED - 2}`);
    expect(few.status).toBe(0);
    expect(few.stdout).toContain(
      `warning: the map has 92 free parameters but was fitted on ${NEED - 2} pairs (${(NEED - 2) * Q} equations): it needs at least 12 pairs to be determined by the data`,
    );
    const json = JSON.parse(align(text, `0:${NEED - 2}`, '--json').stdout);
    expect(json.arms[0].warnings).toHaveLength(1);
    // Enough pairs: quiet, in the table and the JSON.
    expect(align(text, '0:40').stdout).not.toContain('warning:');
    expect(JSON.parse(align(text, '0:40', '--json').stdout).arms[0].warnings).toEqual([]);
  }, 60_000);

  it("warns when an arm's embeddings are all zero, naming the arm", () => {
    const r = align(zeros, '0:40', '--text', text);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('warning: zeros: the text embeddings are all zero on the fit and test rows');
    expect(r.stdout).not.toContain('warning: text:');
    const json = JSON.parse(align(zeros, '0:40', '--json').stdout);
    expect(json.arms[0].imageToText.r1).toBe(0);
    expect(json.arms[0].warnings).toEqual([expect.stringMatching(/^the text embeddings are all zero/)]);
  }, 60_000);
});
