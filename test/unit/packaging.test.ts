/**
 * The .vsix holds only what .vscodeignore lets in: every script, style and
 * icon the extension loads at run time (paths under dist/ and media/ in
 * src/vscode and in package.json's extension fields) must be let in, or the
 * packaged extension shows a blank panel where the development build works.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../support/fixtures';

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** The paths .vscodeignore lets in: it ignores everything (`**`) and lists exceptions with `!`. */
function allowed(): Set<string> {
  const lines = fs
    .readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  assert.ok(lines.includes('**'), '.vscodeignore starts from "everything is ignored"');
  return new Set(lines.filter((l) => l.startsWith('!')).map((l) => l.slice(1)));
}

/** Quoted `dist/…` and `media/…` paths in the extension's sources. */
function pathsInSources(): Set<string> {
  const found = new Set<string>();
  for (const file of filesUnder(path.join(repoRoot, 'src', 'vscode'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/'((?:dist|media)\/[\w./-]+)'/g)) found.add(m[1]);
    // joinPath(extensionUri, 'media', 'arbor.svg') style
    for (const m of text.matchAll(/'(dist|media)',\s*'([\w.-]+)'/g)) found.add(`${m[1]}/${m[2]}`);
  }
  return found;
}

describe('packaging (.vscodeignore)', () => {
  it('lets in every dist/ and media/ file the extension loads', () => {
    const sources = pathsInSources();
    assert.ok(sources.has('dist/webview.js') && sources.has('media/views.css'), `found ${[...sources].join(', ')}`);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      main: string;
      icon: string;
      contributes: { viewsContainers: Record<string, { icon: string }[]> };
    };
    const needed = [
      ...sources,
      pkg.main.replace(/^\.\//, ''),
      pkg.icon,
      ...Object.values(pkg.contributes.viewsContainers)
        .flat()
        .map((c) => c.icon),
    ];
    const ok = allowed();
    const missing = needed.filter((p) => !ok.has(p));
    assert.deepEqual(missing, [], `.vscodeignore leaves out ${missing.join(', ')}`);
  });
});
