import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerData } from '../../engine/cli/data';
import { InputError } from '../../engine/errors';

const tmp = mkdtempSync(join(tmpdir(), 'prh-cli-data-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function prh(...args: string[]): Promise<string> {
  const program = new Command('prh').exitOverride();
  registerData(program);
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  try {
    await program.parseAsync(['node', 'prh', ...args]);
  } finally {
    log.mockRestore();
  }
  return out.join('\n');
}

describe('prh data / prh world', () => {
  const dir = join(tmp, 'w');
  it('world generate --json writes the dataset and reports counts and resolved knobs', async () => {
    const r = JSON.parse(
      await prh(
        'world',
        'generate',
        '--out',
        dir,
        '--size',
        '6,2,2',
        '--seed',
        '3',
        '--preset',
        'strong',
        '--nuisance',
        'medium',
        '--json',
      ),
    );
    expect(r).toMatchObject({
      train: 6,
      val: 2,
      test: 2,
      params: { seed: 3, preset: 'strong', diversity: true, nuisance: 'medium', nuisanceTokens: 3 },
    });
    expect(existsSync(join(dir, 'dataset.json'))).toBe(true);
  });
  it('data inspect: JSON and a human table', async () => {
    expect(JSON.parse(await prh('data', 'inspect', dir, '--json'))).toMatchObject({
      images: 10,
      captions: 50,
      files: { missing: 0, unreadable: 0 },
    });
    expect(await prh('data', 'inspect', dir)).toMatch(
      /images\s+10 {2}\(train 6 \/ val 2 \/ test 2; the dataset's own split\)/,
    );
  });
  it('world preview: scenes with data-URL images and a contact sheet PNG, from the generator or a folder', async () => {
    const sheet = join(tmp, 'sheet.png');
    const r = JSON.parse(
      await prh(
        'world',
        'preview',
        '--size',
        '6,2,2',
        '--seed',
        '3',
        '--preset',
        'strong',
        '--nuisance',
        'medium',
        '--count',
        '3',
        '--sheet',
        sheet,
        '--json',
      ),
    );
    expect(r.scenes).toHaveLength(3);
    expect(r.scenes[0].image).toMatch(/^data:image\/png;base64,/);
    expect(r.scenes[0].captions).toHaveLength(5);
    expect(readFileSync(sheet).subarray(1, 4).toString()).toBe('PNG');
    const fromDir = JSON.parse(await prh('world', 'preview', '--dir', dir, '--count', '3', '--json'));
    expect(fromDir.scenes.map((s: { captions: unknown }) => s.captions)).toEqual(
      r.scenes.map((s: { captions: unknown }) => s.captions),
    );
  });
  it('data import: a Flickr8k Kaggle folder written as our layout, its seeded split (with --split-seed) frozen', async () => {
    const out = join(tmp, 'imported');
    const r = JSON.parse(
      await prh(
        'data',
        'import',
        join(import.meta.dirname, 'fixtures', 'flickr8k-kaggle'),
        '--out',
        out,
        '--split-seed',
        '2',
        '--json',
      ),
    );
    expect(r).toMatchObject({ format: 'table', train: 10, val: 1, test: 1, copied: 12, split: 'seeded' });
    expect(JSON.parse(await prh('data', 'inspect', out, '--json'))).toMatchObject({
      format: 'layout',
      images: 12,
      splitFrom: 'seeded split (seed 2, frozen in dataset.json)',
      files: { missing: 0 },
    });
    await expect(
      prh('data', 'import', join(import.meta.dirname, 'fixtures', 'flickr8k-kaggle'), '--out', out),
    ).rejects.toThrow(/exists \(--force replaces it\)/);
  });
  it('bad input is an InputError naming the flag or file', async () => {
    await expect(prh('world', 'generate', '--out', join(tmp, 'x'), '--size', '1,2')).rejects.toThrow(
      /--size: expected TRAIN,VAL,TEST/,
    );
    await expect(prh('world', 'generate', '--out', dir)).rejects.toThrow(InputError);
    await expect(prh('data', 'inspect', join(import.meta.dirname, 'fixtures', 'layout-bad-syntax'))).rejects.toThrow(
      /dataset\.json: invalid JSON at line 3/,
    );
  });
});
