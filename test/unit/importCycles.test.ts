/** Issue 11 item 4: no import cycle anywhere in src (type-only imports included: they tie modules together too). */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../support/fixtures';

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
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

function resolveLocal(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (candidate.endsWith('.ts') && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Every cycle's strongly connected component (Tarjan), as repo-relative paths. */
export function importCycles(files: string[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps = importSpecifiers(fs.readFileSync(f, 'utf8'))
      .map((s) => resolveLocal(f, s))
      .filter((d): d is string => d !== undefined);
    graph.set(f, [...new Set(deps)]);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(path.relative(repoRoot, w));
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return cycles;
}

describe('module structure', () => {
  it('finds a cycle when there is one (the walker itself)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cycle-'));
    fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), "import type { C } from './c';\nexport const b = 1;\n");
    fs.writeFileSync(path.join(dir, 'c.ts'), "export type C = number;\nexport { a } from './a';\n");
    assert.equal(importCycles(sourceFiles(dir)).length, 1);
  });

  it('no import cycle anywhere in src', () => {
    const cycles = importCycles(sourceFiles(path.join(repoRoot, 'src')));
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.map((c) => c.join(' <-> ')).join('\n')}`);
  });
});
