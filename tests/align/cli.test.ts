// The align / sweep pairs / stats gaussianity commands, run in-process on the golden .npy files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerAlign } from '../../engine/cli/align';
import { readNpy, writeEmbeddings } from '../../engine/embeddings';

const g = (f: string) => join(import.meta.dirname, 'golden', f);
const tmp = mkdtempSync(join(tmpdir(), 'prh-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(...args: string[]): Promise<string> {
  const program = new Command('prh').exitOverride();
  registerAlign(program);
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  try {
    await program.parseAsync(['node', 'prh', ...args]);
  } finally {
    spy.mockRestore();
  }
  return lines.join('\n');
}

describe('prh align', () => {
  it('--json: per-arm scores with CIs and every pairwise difference', async () => {
    const out = JSON.parse(
      await run(
        'align',
        '--image',
        g('image64.npy'),
        '--text',
        g('text64.npy'),
        '--text',
        g('text32.npy'),
        '--fit',
        '0:100',
        '--test',
        '100:150',
        '--bootstrap',
        '200',
        '--seed',
        '1',
        '--json',
      ),
    );
    expect(out.arms.map((a: { file: string }) => a.file)).toEqual([g('text64.npy'), g('text32.npy')]);
    expect(out.arms[0].ranks).toBeUndefined();
    expect(out.bootstrap['imageToText.r1'].differences).toEqual([
      expect.objectContaining({ a: 'text64', b: 'text32' }),
    ]);
    expect(out.bootstrap.mknn.scores.text64.estimate).toBe(out.arms[0].mknn.score);
  });

  it('human table by default; mismatched id sidecars are an InputError naming the row', async () => {
    const table = await run(
      'align',
      '--image',
      g('image64.npy'),
      '--text',
      g('text64.npy'),
      '--fit',
      '0:100',
      '--test',
      '100:150',
      '--bootstrap',
      '100',
    );
    expect(table).toMatch(/i->t R@1/);
    expect(table).toMatch(/chance: R@1 0.0200/);
    const ids = Array.from({ length: 150 }, (_, i) => `p${i}`);
    writeEmbeddings(join(tmp, 'img.npy'), readNpy(g('image64.npy')), ids);
    writeEmbeddings(
      join(tmp, 'txt.npy'),
      readNpy(g('text64.npy')),
      ids.map((id, i) => (i === 7 ? 'other' : id)),
    );
    await expect(
      run(
        'align',
        '--image',
        join(tmp, 'img.npy'),
        '--text',
        join(tmp, 'txt.npy'),
        '--fit',
        '0:100',
        '--test',
        '100:150',
      ),
    ).rejects.toThrow(/row 7 has id 'other'/);
    await expect(
      run('align', '--image', g('image64.npy'), '--text', g('text64.npy'), '--fit', '0-100'),
    ).rejects.toThrow(/START:END/);
  });
});

describe('prh sweep pairs / prh stats gaussianity', () => {
  it('sweep --json has one summary row per count', async () => {
    const out = JSON.parse(
      await run(
        'sweep',
        'pairs',
        '--image',
        g('image64.npy'),
        '--text',
        g('text64.npy'),
        '--fit',
        '0:100',
        '--test',
        '100:150',
        '--counts',
        '10,50,100',
        '--repeats',
        '2',
        '--json',
      ),
    );
    expect(out.summary.map((s: { n: number }) => s.n)).toEqual([10, 50, 100]);
    expect(out.points).toHaveLength(6);
  });

  it('gaussianity --json reports the statistic and its references', async () => {
    const out = JSON.parse(await run('stats', 'gaussianity', g('ep_collapsed.npy'), '--slices', '64', '--json'));
    expect(out.statistic).toBeCloseTo(0.40205 * 256, 2);
    expect(out.reference.gaussian).toBeCloseTo(1.0525, 4);
  });
});
