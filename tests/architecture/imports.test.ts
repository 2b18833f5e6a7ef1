// The layering, checked on the repo's own import graph: no circle of files anywhere (nor of engine's folders);
// the layers in the order below (README "For developers"), each importing only from layers beneath it; the generic
// run machinery (engine/runs) imports no domain; the renderer imports nothing from the engine or the Electron shell;
// shared/ (the contract) imports nothing from the others.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycles, folderGraph, importGraph, relativeImports, resolveImport, type Graph } from './import-graph';

const root = join(import.meta.dirname, '..', '..');
const { graph, unresolved } = importGraph(root, ['engine', 'shared', 'electron', 'renderer']);
const graphOf = (edges: Record<string, string[]>): Graph =>
  new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));
const importsOf = (prefix: string) =>
  [...graph].filter(([f]) => f.startsWith(prefix)).flatMap(([f, tos]) => [...tos].map((t) => `${f} -> ${t}`));
// engine/<folder>/... belongs to engine/<folder>; a file directly in engine/ (errors.ts) to engine.
const engineFolder = (f: string) =>
  f
    .split('/')
    .slice(0, f.split('/').length > 2 ? 2 : 1)
    .join('/');

// The layers, lowest first: a unit (shared/, renderer/, electron/, an engine folder or a file directly in engine/)
// imports from its own files and from units of lower layers, never from its own layer or above.
const LAYERS: string[][] = [
  ['shared', 'engine/errors', 'engine/random', 'engine/skia', 'engine/source-maps', 'engine/version'],
  ['engine/tensor', 'engine/atomic', 'engine/child', 'engine/gpu', 'engine/json-file', 'engine/models'],
  ['engine/embeddings', 'engine/linalg', 'engine/report', 'engine/runs', 'engine/text'],
  ['engine/data', 'engine/metrics', 'engine/slurm', 'engine/theory'],
  ['engine/align', 'engine/train'],
  ['engine/image'],
  ['engine/experiment'],
  ['engine/worker'],
  ['engine/api'],
  ['engine/cli', 'electron', 'renderer'],
];
const unitOf = (f: string) => {
  const p = f.split('/');
  return p[0] !== 'engine' ? p[0] : p.length > 2 ? `${p[0]}/${p[1]}` : `engine/${p[1].replace(/\.ts$/, '')}`;
};
// Each import that breaks the order, "from -> to (layer i -> layer j)"; a unit in no layer is "<unit>: in no layer".
function layerViolations(g: Graph, layers: string[][]): string[] {
  const layer = new Map(layers.flatMap((units, i) => units.map((u) => [u, i] as const)));
  const out = new Set<string>();
  for (const [f, tos] of g)
    for (const t of [f, ...tos]) if (!layer.has(unitOf(t))) out.add(`${unitOf(t)}: in no layer`);
  for (const [f, tos] of g)
    for (const t of tos) {
      const [a, b] = [unitOf(f), unitOf(t)];
      if (a !== b && layer.get(b)! >= layer.get(a)!)
        out.add(`${f} -> ${t} (layer ${layer.get(a)} -> layer ${layer.get(b)})`);
    }
  return [...out].sort();
}

describe('the import scanner', () => {
  it('finds static, type, re-export, side-effect and dynamic imports, across lines, not in comments', () => {
    const src = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      'import {\n  c,\n  d,\n} from "./cd";',
      "export { e } from './e';",
      "export * from './f/index';",
      "import './side-effect';",
      "const g = await import('./g');",
      "import { z } from 'zod';",
      "// import { no } from './commented';",
      "/* import('./also-commented') */",
      "const url = 'https://example.com'; import { h } from './h';",
    ].join('\n');
    expect(relativeImports(src).sort()).toEqual([
      '../b',
      './a',
      './cd',
      './e',
      './f/index',
      './g',
      './h',
      './side-effect',
    ]);
  });

  it('resolves a specifier to a .ts, a .vue or a folder index', () => {
    const files = new Set(['engine/runs/index.ts', 'engine/runs/job.ts', 'renderer/src/App.vue']);
    expect(resolveImport('engine/worker/main.ts', '../runs', files)).toBe('engine/runs/index.ts');
    expect(resolveImport('engine/runs/index.ts', './job', files)).toBe('engine/runs/job.ts');
    expect(resolveImport('renderer/src/main.ts', './App.vue', files)).toBe('renderer/src/App.vue');
    expect(resolveImport('engine/runs/index.ts', './nope', files)).toBeNull();
  });

  it('finds every circle, with the files in it, and none in a layered graph', () => {
    const g = graphOf({ a: ['b'], b: ['c'], c: ['a', 'd'], d: ['e'], e: [], s: ['s'] });
    expect(findCycles(g).sort()).toEqual([['a', 'b', 'c'], ['s']]);
    expect(findCycles(graphOf({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
    // the circle this check was written for: lab.ts -> settings.ts -> service.ts -> lab.ts
    expect(
      findCycles(graphOf({ 'lab.ts': ['settings.ts'], 'settings.ts': ['service.ts'], 'service.ts': ['lab.ts'] })),
    ).toEqual([['lab.ts', 'service.ts', 'settings.ts']]);
  });
});

describe('the repo', () => {
  it('is scanned whole: every relative import of code resolves, including dynamic and .vue ones', () => {
    expect(unresolved).toEqual([]);
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('engine/api/service.ts')).toContain('engine/runs/index.ts');
    expect(graph.get('engine/worker/jobs.ts')).toContain('engine/experiment/index.ts'); // import('../experiment')
    expect([...graph].some(([f, tos]) => f.endsWith('.vue') && tos.has('shared/api.ts'))).toBe(true);
  });

  it('imports only downwards through the layers, and every unit has its layer', () => {
    expect(layerViolations(graph, LAYERS)).toEqual([]);
    // not vacuous: an import upwards, one within a layer, and a unit nobody placed are each named
    const g = graphOf({
      'engine/linalg/matrix.ts': ['engine/train/loop.ts', 'engine/runs/store.ts'],
      'engine/new/thing.ts': [],
    });
    expect(layerViolations(g, LAYERS)).toEqual([
      'engine/linalg/matrix.ts -> engine/runs/store.ts (layer 2 -> layer 2)',
      'engine/linalg/matrix.ts -> engine/train/loop.ts (layer 2 -> layer 4)',
      'engine/new: in no layer',
    ]);
  });

  it('has no import circle', () => {
    expect(findCycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it("has no circle between engine's folders", () => {
    const engine = new Map(
      [...graph]
        .filter(([f]) => f.startsWith('engine/'))
        .map(([f, tos]) => [f, new Set([...tos].filter((t) => t.startsWith('engine/')))]),
    );
    expect(findCycles(folderGraph(engine, engineFolder)).map((c) => c.join(' <-> '))).toEqual([]);
  });

  it('keeps engine/runs generic: it imports no domain folder (jobs import runs, never the reverse)', () => {
    const allowed = /^(engine\/(runs|atomic|child)\/|engine\/(errors|json-file)\.ts$|shared\/)/;
    expect(importsOf('engine/runs/').filter((e) => !allowed.test(e.split(' -> ')[1]))).toEqual([]);
  });

  it('keeps the renderer off the engine and the shell, and shared/ self-contained', () => {
    expect(importsOf('renderer/').filter((e) => /-> (engine|electron)\//.test(e))).toEqual([]);
    expect(importsOf('shared/').filter((e) => !/-> shared\//.test(e))).toEqual([]);
  });
});
