// The repo's import graph: every relative import (static, `export ... from`, side-effect, dynamic `import()`) of
// the .ts and .vue files under the given folders, resolved to files; and the circles in it (Tarjan's strongly
// connected components: every component of more than one file, or a file importing itself, is a circle).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

export type Graph = Map<string, Set<string>>; // file -> the files it imports (paths relative to the root, '/'-separated)

const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x from '…', export { x } from '…'
  /\bimport\s*['"]([^'"]+)['"]/g, // import '…'
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, // import('…')
];

// Comments may quote code; a `//` after a quote or colon (a URL in a string) is not a comment.
const stripComments = (src: string): string =>
  src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

export function relativeImports(src: string): string[] {
  const code = stripComments(src);
  return SPECIFIERS.flatMap((re) => [...code.matchAll(re)].map((m) => m[1])).filter((s) => s.startsWith('.'));
}

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(root, rel);
    return /\.(ts|vue)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

// A specifier names a file as written, or without its .ts/.vue, or a folder's index.ts.
export function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | null {
  const base = normalize(join(dirname(from), spec))
    .split(sep)
    .join('/');
  return [base, `${base}.ts`, `${base}.vue`, `${base}/index.ts`].find((c) => files.has(c)) ?? null;
}

// Unresolved relative imports of code are returned too: a scan that silently dropped edges could miss a circle.
export function importGraph(root: string, folders: string[]): { graph: Graph; unresolved: string[] } {
  const files = folders.flatMap((f) => sourceFiles(root, f));
  const known = new Set(files);
  const graph: Graph = new Map();
  const unresolved: string[] = [];
  for (const file of files) {
    const to = new Set<string>();
    for (const spec of relativeImports(readFileSync(join(root, file), 'utf8'))) {
      const target = resolveImport(file, spec, known);
      if (target) to.add(target);
      else if (!/\.(css|svg|png|json|html)$/.test(spec)) unresolved.push(`${file}: ${spec}`);
    }
    graph.set(file, to);
  }
  return { graph, unresolved };
}

export function findCycles(graph: Graph): string[][] {
  const index = new Map<string, number>(),
    low = new Map<string, number>();
  const stack: string[] = [],
    onStack = new Set<string>(),
    cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || graph.get(v)?.has(v)) cycles.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

// The same graph between folders: engine/runs/store.ts belongs to 'engine/runs', engine/errors.ts to 'engine'.
export function folderGraph(graph: Graph, folderOf: (file: string) => string): Graph {
  const out: Graph = new Map();
  for (const [from, tos] of graph) {
    const f = folderOf(from);
    if (!out.has(f)) out.set(f, new Set());
    for (const to of tos) if (folderOf(to) !== f) out.get(f)!.add(folderOf(to));
  }
  return out;
}
