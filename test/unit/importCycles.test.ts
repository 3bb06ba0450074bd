/**
 * No import cycle anywhere in src (issue 11 item 4), between files or between folders (issue 22: engine/tokens and
 * engine/context imported each other). Type-only imports count: they tie modules together too.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../support/fixtures';
import { cycles, describeCycle, fileGraph, folderGraph, type ImportGraph } from '../support/importGraph';

function report(graph: ImportGraph): string {
  return cycles(graph)
    .map((c) => describeCycle(graph, c))
    .join('\n');
}

/** Writes files (path -> source) under a fresh folder. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cycle-'));
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

describe('module structure', () => {
  it('finds a file cycle when there is one (the walker itself)', () => {
    const dir = tree({
      'a.ts': "import { b } from './b';\nexport const a = b;\n",
      'b.ts': "import type { C } from './c';\nexport const b = 1;\n",
      'c.ts': "export type C = number;\nexport { a } from './a';\n",
    });
    try {
      assert.deepEqual(cycles(fileGraph(dir)), [['a.ts', 'b.ts', 'c.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds a folder cycle between sibling folders at any depth, and none between a folder and its own subfolders', () => {
    const dir = tree({
      'engine/tokens/count.ts': "import type { P } from '../context/projection';\nexport const n = 1;\n",
      'engine/context/projection.ts': 'export type P = number;\n',
      'engine/context/numbers.ts': "import { n } from '../tokens/count';\nexport const m = n;\n",
      'engine/summarize/offline/x.ts': "export const x = require('../retention/y');\n",
      'engine/summarize/retention/y.ts': "export const y = import('../offline/z');\n",
      'engine/summarize/offline/z.ts': 'export const z = 1;\n',
      'vscode/extension.ts': "import './tree/provider';\n",
      'vscode/tree/provider.ts': "import { s } from '../services';\nexport const p = s;\n",
      'vscode/services.ts': 'export const s = 1;\n',
      'ok/a/a.ts': "import { b } from '../b/b';\nexport const a = b;\n",
      'ok/b/b.ts': 'export const b = 1;\n',
    });
    try {
      const files = fileGraph(dir);
      assert.deepEqual(cycles(files), [], 'no file imports itself back');
      const folders = folderGraph(files);
      assert.deepEqual(cycles(folders), [
        ['engine/context', 'engine/tokens'],
        ['engine/summarize/offline', 'engine/summarize/retention'],
      ]);
      assert.match(report(folders), /engine\/tokens -> engine\/context: engine\/tokens\/count\.ts imports \.\.\/context\/projection/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no import cycle between files anywhere in src', () => {
    const graph = fileGraph(path.join(repoRoot, 'src'));
    assert.ok(graph.size > 100, `${graph.size} files`);
    assert.equal(report(graph), '');
  });

  it('no import cycle between folders anywhere in src', () => {
    const files = fileGraph(path.join(repoRoot, 'src'));
    const folders = folderGraph(files);
    assert.ok(folders.has('engine/context') && folders.has('cli') && folders.has('vscode'), [...folders.keys()].join(', '));
    assert.equal(report(folders), '');
  });
});
