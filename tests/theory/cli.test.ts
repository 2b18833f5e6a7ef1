import { afterEach, describe, expect, it, vi } from 'vitest';
import { Command } from 'commander';
import { registerTheory } from '../../engine/cli/theory';
import { InputError } from '../../engine/errors';

async function run(args: string[]): Promise<{ out: string; exit: number | null }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  let exit: number | null = null;
  const program = new Command('prh').exitOverride();
  registerTheory(program, (c) => (exit = c));
  try {
    await program.parseAsync(['node', 'prh', 'theory', ...args]);
  } finally {
    spy.mockRestore();
  }
  return { out: lines.join('\n'), exit };
}

describe('prh theory', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prop3 --json prints one document with rows and summary', async () => {
    const { out } = await run([
      'prop3',
      '--worlds',
      '2',
      '--states',
      '10',
      '--k',
      '2',
      '--m',
      '3',
      '--grid',
      '5',
      '--seed',
      '1',
      '--world',
      'clustered',
      '--json',
    ]);
    const doc = JSON.parse(out);
    expect(doc.rows).toHaveLength(10);
    expect(doc.params).toMatchObject({
      worlds: 2,
      states: 10,
      k: 2,
      m: 3,
      grid: 5,
      seed: 1,
      worldKind: 'clustered',
      stickiness: 0.8,
    });
    expect(doc.summary.rhoOne.r).toEqual([2, 2]);
  });

  it('prop3 human mode prints a summary table, rows only with --rows', async () => {
    const args = ['prop3', '--worlds', '1', '--states', '8', '--k', '2', '--m', '3', '--grid', '5'];
    const plain = await run(args);
    expect(plain.out).toMatch(/above threshold/);
    expect(plain.out.split('\n').length).toBeLessThan(25);
    const withRows = await run([...args, '--rows']);
    expect(withRows.out.split('\n').length).toBeGreaterThan(plain.out.split('\n').length + 4);
  });

  it('thm1, prop2, thm3 and explore answer in JSON', async () => {
    expect(JSON.parse((await run(['thm1', '--json'])).out).gap.unique).toBe(true);
    expect(JSON.parse((await run(['prop2', '--k', '4', '--json'])).out).kPairs.states).toHaveLength(4);
    const thm3 = await run(['thm3', '--embeddings', '3', '--json']);
    expect(JSON.parse(thm3.out).holds).toBe(true);
    expect(thm3.exit).toBeNull();
    expect(JSON.parse((await run(['explore', '--n', '10', '--rho', '1', '--json'])).out).r).toBe(4);
  });

  it('bad options are InputErrors (exit 2 in prh)', async () => {
    await expect(run(['prop3', '--k', '30', '--json'])).rejects.toThrow(InputError);
    await expect(run(['explore', '--rho', 'abc', '--json'])).rejects.toThrow(/rho/);
    await expect(run(['prop3', '--world', 'sticky'])).rejects.toThrow(/worldKind/);
  });
});
