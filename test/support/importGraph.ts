/**
 * The import graph of a source tree, for the structure tests
 * (test/unit/importCycles.test.ts): which of its files import which (every
 * form: `import`, `import type`, `export … from`, `import()`, `require()`),
 * the same graph between folders, and the cycles of either.
 *
 * Folders: an import from a file under folder A of a file under folder B,
 * where A and B are siblings (the first folders in which the two paths part,
 * such as engine/tokens and engine/context, or vscode/tree and
 * vscode/commands), is an edge A -> B. A file directly in a folder is part of
 * that folder (vscode/extension.ts importing vscode/tree/ is inside vscode),
 * so imports between a folder and its own subfolders are not edges.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** From each node to the nodes it imports, each with the imports that make the edge. */
export type ImportGraph = Map<string, Map<string, string[]>>;

const SOURCE = /\.(ts|js)$/;

/** Every source file under `dir` (TypeScript, and the plain JavaScript modules it imports), sorted. */
export function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && SOURCE.test(d.name) && !d.name.endsWith('.d.ts'))
    .map((d) => path.join(d.parentPath, d.name))
    .sort();
}

/** Module specifiers of `import … from '…'`, `export … from '…'`, `import '…'`, `import('…')` and `require('…')`. */
export function importSpecifiers(source: string): string[] {
  const specs: string[] = [];
  const patterns = [
    /\bfrom\s+['"]([^'"\n]+)['"]/g,
    /\bimport\s+['"]([^'"\n]+)['"]/g,
    /\b(?:import|require)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) specs.push(m[1]);
  return specs;
}

/** The file a relative specifier names (a .ts or .js file, or a folder's index.ts), or undefined for a package or built-in. */
function resolveLocal(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, `${base}.js`, path.join(base, 'index.ts'), base].find((c) => SOURCE.test(c) && fs.existsSync(c));
}

function addEdge(graph: ImportGraph, a: string, b: string, why: string): void {
  if (!graph.has(a)) graph.set(a, new Map());
  const to = graph.get(a)!;
  if (!to.has(b)) to.set(b, []);
  to.get(b)!.push(why);
}

const slashed = (p: string) => p.split(path.sep).join('/');

/** The file graph: nodes are paths relative to `root`. */
export function fileGraph(root: string, files = sourceFiles(root)): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const f of files) {
    const from = slashed(path.relative(root, f));
    graph.set(from, new Map());
    for (const spec of importSpecifiers(fs.readFileSync(f, 'utf8'))) {
      const to = resolveLocal(f, spec);
      if (to) addEdge(graph, from, slashed(path.relative(root, to)), `${from} imports ${spec}`);
    }
  }
  return graph;
}

/** The sibling folders an import from `from` to `to` (files, relative to the root) crosses, or undefined inside one folder. */
function siblingFolders(from: string, to: string): [string, string] | undefined {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/').slice(0, -1);
  if (b[0] === '..') return undefined; // outside the tree
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  if (k >= a.length || k >= b.length) return undefined; // one folder holds the other (or they are the same)
  return [a.slice(0, k + 1).join('/'), b.slice(0, k + 1).join('/')];
}

/** The folder graph of a file graph: nodes are folders relative to the root. */
export function folderGraph(files: ImportGraph): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [from, to] of files)
    for (const [file, why] of to) {
      const pair = siblingFolders(from, file);
      if (pair) for (const w of why) addEdge(graph, pair[0], pair[1], w);
    }
  return graph;
}

/** The cycles of a graph: its strongly connected components of more than one node (or a node importing itself), each sorted. */
export function cycles(graph: ImportGraph): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Tarjan's algorithm (recursive: a source tree is a few hundred files deep at most).
  const visit = (v: string): void => {
    order.set(v, order.size);
    low.set(v, order.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) !== order.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!order.has(v)) visit(v);
  return found;
}

/** A cycle with the imports that make its edges, for a failure message. */
export function describeCycle(graph: ImportGraph, cycle: string[]): string {
  const lines: string[] = [];
  for (const a of cycle)
    for (const b of cycle) {
      const why = graph.get(a)?.get(b);
      if (why) lines.push(`  ${a} -> ${b}: ${why.slice(0, 3).join(', ')}${why.length > 3 ? `, and ${why.length - 3} more` : ''}`);
    }
  return `${cycle.join(' <-> ')}\n${lines.join('\n')}`;
}
