/** The boundary: src/engine and src/cli never import vscode, enforced by the lint rule. */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '../support/fixtures';

const eslint = path.join(repoRoot, 'node_modules', 'eslint', 'bin', 'eslint.js');

function lintSnippet(file: string, code: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [eslint, '--stdin', '--stdin-filename', file], { cwd: repoRoot, input: code, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('architecture', function () {
  it('the lint rule rejects a vscode import in the engine and the CLI, and allows it in src/vscode', () => {
    const code = "import * as vscode from 'vscode';\nexport const x = vscode.version;\n";
    for (const f of ['src/engine/session/bad.ts', 'src/cli/bad.ts']) {
      const r = lintSnippet(f, code);
      assert.equal(r.status, 1, r.out);
      assert.match(r.out, /must not import vscode/);
    }
    assert.equal(lintSnippet('src/vscode/fine.ts', code).status, 0);
  });

  it('no file under src/engine or src/cli imports vscode today', () => {
    const r = spawnSync('grep', ['-rlE', "from 'vscode'|require\\('vscode'\\)", 'src/engine', 'src/cli'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    const hits = r.stdout.trim();
    assert.equal(hits, '');
  });
});
