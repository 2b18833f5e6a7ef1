// Every reference in the docs resolves from a clone: the relative links and #anchors of README.md and docs/*.md, and
// the docs/…md#anchor references in code comments, point at files and headings that exist (GitHub's heading anchors).
// And the docs speak of the project, not of how its work was organised: no "stop N".
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const code = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'node_modules' || e.name === 'fixtures' || e.name === 'golden'
        ? []
        : code(`${dir}/${e.name}`)
      : /\.(ts|vue|js|py|sh)$/.test(e.name)
        ? [`${dir}/${e.name}`]
        : [],
  );
const sources = ['engine', 'shared', 'renderer', 'electron', 'tests', 'bin'].flatMap(code);

// GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits, spaces, - and _ kept), spaces to
// '-'; a repeated heading gets -1, -2, ...
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = m[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

const anchorsOf = new Map<string, Set<string>>();
const headings = (file: string) => {
  if (!anchorsOf.has(file)) anchorsOf.set(file, anchors(readFileSync(join(root, file), 'utf8')));
  return anchorsOf.get(file)!;
};

// A link target from `file`: '' (this file) or a path, and the anchor; problems in words, [] when it resolves.
function broken(file: string, target: string): string[] {
  if (/^[a-z]+:/i.test(target)) return []; // https:, mailto:
  const [path, anchor] = target.split('#');
  const to = path ? relative(root, resolve(root, dirname(file), decodeURI(path))) : file;
  if (!existsSync(join(root, to))) return [`${file}: ${target}: no file ${to}`];
  if (anchor === undefined || !to.endsWith('.md') || statSync(join(root, to)).isDirectory()) return [];
  return headings(to).has(anchor) ? [] : [`${file}: ${target}: no heading #${anchor} in ${to}`];
}

describe('the docs', () => {
  it('link only to files and headings that exist', () => {
    const problems = docs.flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      return [...text.matchAll(/\]\(([^)\s]+)\)/g)].flatMap((m) => broken(file, m[1]));
    });
    expect(problems).toEqual([]);
  });

  it('are cited by code at headings that exist (docs/…md#anchor)', () => {
    const problems = sources.flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/\b((?:docs\/[\w.-]+|README)\.md)(#[\w-]+)?/g)].flatMap((m) =>
        broken('.', `${m[1]}${m[2] ?? ''}`).map((p) => `${file}: ${p}`),
      ),
    );
    expect(problems).toEqual([]);
  });

  // `engine/image/world-encoder/recipe.ts`, engine/cli/main.ts: a path into the tree in a doc or a comment is there
  // (a quoted one is code's: a module specifier such as 'electron/package.json').
  it('name only source files and folders that exist', () => {
    const path =
      /(?<![\w./@'"-])((?:engine|shared|renderer|electron|tests|bin|resources|docs|scripts)\/[\w./-]*[\w/])/g;
    const problems = [...docs, ...sources].flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          [...line.matchAll(path)]
            .map((m) => m[1].replace(/\/$/, ''))
            .filter((p) => !p.includes('*') && !existsSync(join(root, p)))
            .map((p) => `${file}:${i + 1}: ${p}`),
        ),
    );
    expect(problems).toEqual([]);
  });

  it('speak of the project, not of how its work was organised', () => {
    const found = [...docs, ...sources].flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\bstops? [0-9]+/i.test(line) && !file.endsWith('links.test.ts') ? [`${file}:${i + 1}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});

describe('the anchor of a heading', () => {
  it("is GitHub's", () => {
    expect([
      ...anchors('# Image views (the 2x2)\n## λ_eff = λ·N\n## Prop 3\n## Prop 3\n```\n# not a heading\n```\n'),
    ]).toEqual(['image-views-the-2x2', 'λ_eff--λn', 'prop-3', 'prop-3-1']);
  });
});
