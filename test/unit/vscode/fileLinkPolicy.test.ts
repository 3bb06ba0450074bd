// Which file links the summary panel may open (src/vscode/panels/fileLinkPolicy.ts, no vscode import).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { decideFileLink, isInside, looksLikeUri, type LinkRoots } from '../../../src/vscode/panels/fileLinkPolicy';

describe('vscode file link policy', () => {
  let root: string;
  let roots: LinkRoots;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-policy-')));
    for (const d of ['ws/src', 'cwd', 'out']) fs.mkdirSync(path.join(root, d), { recursive: true });
    fs.writeFileSync(path.join(root, 'ws/src/a.ts'), '');
    fs.writeFileSync(path.join(root, 'cwd/notes.md'), '');
    fs.writeFileSync(path.join(root, 'out/secret.txt'), '');
    fs.symlinkSync(path.join(root, 'out/secret.txt'), path.join(root, 'ws/link.txt'));
    fs.symlinkSync(path.join(root, 'out'), path.join(root, 'cwd/outdir'));
    roots = { workspaceFolders: [path.join(root, 'ws')], sessionCwd: path.join(root, 'cwd'), base: path.join(root, 'cwd') };
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const decide = (p: string, resolved = path.isAbsolute(p) ? p : path.resolve(roots.base, p)) => decideFileLink(p, resolved, roots);

  it('opens files in a workspace folder or the session cwd', () => {
    assert.deepStrictEqual(decide(path.join(root, 'ws/src/a.ts')), { kind: 'open', file: path.join(root, 'ws/src/a.ts') });
    assert.deepStrictEqual(decide('notes.md'), { kind: 'open', file: path.join(root, 'cwd/notes.md') });
    assert.deepStrictEqual(decide('./../cwd/notes.md'), { kind: 'open', file: path.join(root, 'cwd/notes.md') });
  });

  it('asks about any other file, after following symlinks and ..', () => {
    const secret = path.join(root, 'out/secret.txt');
    assert.deepStrictEqual(decide(secret), { kind: 'ask', file: secret });
    assert.deepStrictEqual(decide('../out/secret.txt'), { kind: 'ask', file: secret });
    assert.deepStrictEqual(decide(path.join(root, 'ws/link.txt')), { kind: 'ask', file: secret });
    assert.deepStrictEqual(decide('outdir/secret.txt'), { kind: 'ask', file: secret });
    // A session cwd that does not exist counts for nothing.
    assert.strictEqual(decideFileLink(secret, secret, { ...roots, sessionCwd: path.join(root, 'gone') }).kind, 'ask');
    assert.strictEqual(decideFileLink(secret, secret, { workspaceFolders: [], sessionCwd: '', base: root }).kind, 'ask');
  });

  it('refuses URIs, network paths, folders, missing files and mismatched resolutions', () => {
    for (const p of [
      'command:workbench.action.quit',
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'file:///etc/passwd',
      'https://x.invalid/a',
      'vscode://file/x',
      'data:text/html,x',
      'c:/windows/x',
      '//host/share/x',
      '\\\\host\\share\\x',
    ]) {
      assert.strictEqual(decide(p).kind, 'refuse', p);
    }
    assert.strictEqual(decide(path.join(root, 'ws/src')).kind, 'refuse', 'a folder');
    assert.strictEqual(decide('missing.txt').kind, 'refuse');
    assert.strictEqual(decide('notes.md\0.txt').kind, 'refuse');
    assert.strictEqual(decide('', '').kind, 'refuse');
    assert.strictEqual(
      decideFileLink('notes.md', path.join(root, 'out/secret.txt'), roots).kind,
      'refuse',
      'resolved elsewhere than the link says',
    );
    assert.strictEqual(decideFileLink('notes.md', 'command:x', roots).kind, 'refuse');
  });

  it('helpers', () => {
    assert.strictEqual(looksLikeUri('C:\\x', 'win32'), false);
    assert.strictEqual(looksLikeUri('C:\\x', 'linux'), true);
    assert.strictEqual(looksLikeUri('src/a:b.ts', 'linux'), false);
    assert.strictEqual(isInside('/a/b', '/a'), true);
    assert.strictEqual(isInside('/a', '/a'), true);
    assert.strictEqual(isInside('/ab', '/a'), false);
    assert.strictEqual(isInside('/a/..b', '/a'), true);
  });
});
