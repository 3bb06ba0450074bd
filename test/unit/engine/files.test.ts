/** File histories along the tree (src/engine/files) on real Pi sessions and hostile hand-made ones. */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { changesBy, historyToEntry, sessionFiles } from '../../../src/engine/files/sessionFiles';
import { replayEdits } from '../../../src/engine/files/applyEdits';
import { resolveToolPath } from '../../../src/engine/files/filePaths';
import { isReadOnlyCommand } from '../../../src/engine/files/bashEffects';
import { findOccurrences } from '../../../src/engine/files/textSearch';
import { fullReadText } from '../../../src/engine/files/readResult';
import { decideRestore, restoreCandidates, sha256 } from '../../../src/engine/files/restorePlan';
import { diskState, safeLocation } from '../../../src/engine/files/diskState';
import { stepDiff } from '../../../src/engine/files/stepDiff';
import type { FileContent } from '../../../src/engine/files/types';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { fixturePath } from '../../support/fixtures';

const oracle = (name: string) => fixturePath('pi-oracle', 'fixtures', `${name}.jsonl`);
const own = (name: string) => fixturePath('files', `${name}.jsonl`);

/** The text of the read result answering the read call at `entryId` for `file`. */
function readResultText(index: SessionIndex, callEntryId: string, file: string): string {
  const call = index.entryById(callEntryId) as any;
  const id = call.message.content.find((b: any) => b.type === 'toolCall' && b.arguments.path === file).id;
  for (let i = 0; i < index.entryCount; i++) {
    const e = index.entry(i) as any;
    if (e.type === 'message' && e.message.role === 'toolResult' && e.message.toolCallId === id) return e.message.content[0].text;
  }
  throw new Error('no result');
}

const text = (c: FileContent | undefined): string | undefined => (c && (c.state === 'known' || c.state === 'assumed') ? c.text : undefined);

describe('files along the tree (engine)', () => {
  it('01-plain: edits, a failed edit and its retry, a new file; content known only where the session shows it', async () => {
    const index = await loadSession(oracle('01-plain'));
    const h = historyToEntry(index, index.leafIndex, sessionFiles(index));
    const f = (p: string) => h.files.get(`/home/user/project/${p}`)!;
    const tests = f('test/math.test.js');
    assert.deepEqual(
      tests.changes.map((c) => [c.entryId, c.kind]),
      [['ec530457', 'edit']],
      'the failed edit 7fabb209 changed nothing',
    );
    assert.equal(tests.changes[0].before.state, 'known');
    assert.match(text(tests.changes[0].after)!, /import \{ add, sub, mul \} from "\.\.\/src\/math\.js";/);
    assert.equal(tests.final.state, 'unknown', '`node --test test/` names its folder');
    const math = f('src/math.js');
    assert.equal(math.changes.length, 1);
    assert.equal(
      text(math.changes[0].after),
      'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n',
    );
    assert.equal(math.final.state, 'assumed');
    assert.match((math.final as any).reason, /node --test/);
    const index_js = f('src/index.js');
    assert.equal(index_js.final.state, 'unknown', 'edited without the session ever showing it whole');
    assert.deepEqual(stepDiff(index_js.changes[0]), {
      before: 'export { add, sub } from "./math.js";',
      after: 'export { add, sub, mul } from "./math.js";',
      note: stepDiff(index_js.changes[0]).note,
      tag: 'replaced text only',
    });
    const changelog = f('CHANGELOG.md');
    assert.deepEqual(
      changelog.changes.map((c) => c.kind),
      ['write'],
    );
    assert.equal(changelog.final.state, 'known');
    assert.deepEqual(changelog.firstSeenByWrite, undefined, 'the path run starts from the session-wide initial contents');
    assert.equal(f('data/records.csv').final.state, 'unknown', 'only partial reads (offset/limit, bash head)');
  });

  it('replayed edits equal what a later full read of the file shows (03-tree, 04-split-turn)', async () => {
    const tree = await loadSession(oracle('03-tree'));
    const beforeRead = historyToEntry(tree, tree.indexOf('9e2ff961') - 0, sessionFiles(tree));
    // the read call at 9e2ff961 is on the pow branch, after the mul edit and a `node --test` run
    const derived = beforeRead.files.get('/home/user/project/src/math.js')!;
    assert.equal(derived.final.state, 'assumed');
    assert.equal(text(derived.final), readResultText(tree, '9e2ff961', 'src/math.js'));

    const split = await loadSession(oracle('04-split-turn'));
    const h = historyToEntry(split, split.indexOf('bf53e55a'), sessionFiles(split));
    const guide2 = h.files.get('/home/user/project/docs/guide-2.md')!;
    assert.equal(guide2.changes.length, 1);
    assert.equal(text(guide2.final), readResultText(split, 'bf53e55a', 'docs/guide-2.md'));
  });

  it('branches: each path sees only its own changes (03-tree)', async () => {
    const index = await loadSession(oracle('03-tree'));
    const files = sessionFiles(index);
    const ops = historyToEntry(index, index.indexOf('55f6a1d0'), files);
    const changed = [...ops.files.values()].filter((f) => f.changes.length).map((f) => f.path);
    assert.deepEqual(
      changed,
      ['src/math.js', 'test/math.test.js', 'src/index.js', 'src/ops.js'].filter((p) => p === 'src/ops.js'),
    );
    const pow = historyToEntry(index, index.leafIndex, files);
    assert.deepEqual(
      pow.files.get('/home/user/project/src/math.js')!.changes.map((c) => c.entryId),
      ['cf16be66', '37ff4a18'],
    );
    assert.equal(pow.files.get('/home/user/project/src/ops.js'), undefined);
    // one entry's changes, and a branch's
    assert.deepEqual(
      changesBy(pow, new Set(['37ff4a18'])).map((f) => f.path),
      ['src/math.js'],
    );
    assert.equal(files.initial.get('/home/user/project/src/ops.js')!.state, 'absent');
  });

  it('bash: a command naming a file makes it unknown; other commands leave it "assumed"; read-only ones change nothing', async () => {
    const index = await loadSession(own('bash-effects'));
    const files = sessionFiles(index);
    const h = historyToEntry(index, index.leafIndex, files);
    const a = h.files.get('/home/user/project/a.txt')!;
    assert.equal(a.final.state, 'unknown');
    assert.match((a.final as any).reason, /sed -i .* names it/);
    assert.equal((a.final as any).afterEntryId, 'bash0007');
    const b = h.files.get('/home/user/project/lib/b.txt')!;
    assert.equal(b.changes[0].before.state, 'absent', 'first written here');
    assert.equal(b.changes[1].before.state, 'assumed', 'the sed command does not name lib/b.txt');
    assert.equal(b.changes[1].after.state, 'assumed');
    assert.equal(b.final.state, 'known', 're-established by the full read after `npm run format`');
    const beforeSed = historyToEntry(index, index.indexOf('bash0005'), files);
    assert.equal(beforeSed.files.get('/home/user/project/a.txt')!.final.state, 'known', '`cat a.txt | wc -l && ls lib` is read-only');
    assert.ok(isReadOnlyCommand("grep -n 'TODO' docs/*.md"));
    assert.ok(isReadOnlyCommand("sed -n '1,40p' docs/guide-5.md"));
    for (const c of [
      'sed -i s/a/b/ f',
      'echo x > f',
      'cat a | tee f',
      'find . -delete',
      'sort -o f f',
      'ls $(rm -rf x)',
      'git checkout f',
      'node -e 1',
      'FOO=1 cat f',
      '"rm" f',
      "sed -n 'w out' f",
    ]) {
      assert.ok(!isReadOnlyCommand(c), c);
    }
  });

  it(
    'partial reads never give a base; CRLF and BOM survive a replay; fuzzy-only edits, calls without result and failed ' +
      'edits change nothing known',
    async () => {
      const index = await loadSession(own('reads-and-edits'));
      const h = historyToEntry(index, index.leafIndex, sessionFiles(index));
      const f = (p: string) => h.files.get(`/home/user/project/${p}`)!;
      for (const p of ['part.txt', 'lim.txt', 'trunc.txt']) {
        assert.equal(f(p).changes.length, 1, p);
        assert.equal(f(p).final.state, 'unknown', p);
      }
      assert.equal(text(f('crlf.txt').final), '\ufeffONE\r\nTWO\r\nthree\r\n');
      assert.equal(f('crlf.txt').changes.length, 1, 'the failed edit e6 is not a change');
      assert.equal(f('quotes.txt').final.state, 'unknown');
      assert.match((f('quotes.txt').final as any).reason, /does not replay exactly/);
      assert.equal(h.files.get('/home/user/project/never.txt'), undefined, 'a write without a result');
      assert.equal(
        fullReadText({}, [{ type: 'text', text: 'a\n\n[3 more lines in file. Use offset=3 to continue.]' }], undefined),
        undefined,
      );
      assert.equal(
        fullReadText(
          {},
          [
            { type: 'text', text: 'Read image file [image/png]' },
            { type: 'image', data: '', mimeType: 'image/png' },
          ],
          undefined,
        ),
        undefined,
      );
      assert.equal(fullReadText({ offset: 1 }, [{ type: 'text', text: 'whole\n' }], undefined), 'whole\n');
    },
  );

  it('paths: resolved against the session cwd; outside it flagged', async () => {
    const index = await loadSession(own('paths'));
    const h = historyToEntry(index, index.leafIndex, sessionFiles(index));
    const got = [...h.files.values()].map((f) => [f.path, f.insideCwd]);
    assert.deepEqual(got, [
      ['/home/user/outside.txt', false],
      ['/etc/arbor-test.txt', false],
      ['src/at.txt', true],
      ['src/abs.txt', true],
      ['~/home.txt', false],
    ]);
  });

  it('tool paths as Pi resolves them: U+00A0 and other Unicode spaces are spaces, a backslash is part of a POSIX name', () => {
    assert.equal(resolveToolPath('my\u00a0file.txt', '/p').absPath, '/p/my file.txt');
    assert.equal(resolveToolPath('@a\u2009b.txt', '/p').path, 'a b.txt');
    assert.equal(resolveToolPath('dir\\name.txt', '/p').absPath, '/p/dir\\name.txt');
    assert.equal(resolveToolPath('dir\\name.txt', 'C:\\p').absPath, 'C:\\p\\dir\\name.txt');
  });

  it('names that start with dots are inside the working directory (`..notes.txt`, `...txt`, `a/..b`); `..` and `../x` lead out', () => {
    const inside = (p: string, cwd = '/p') => [resolveToolPath(p, cwd).path, resolveToolPath(p, cwd).insideCwd];
    assert.deepEqual(inside('..notes.txt'), ['..notes.txt', true]);
    assert.deepEqual(inside('...txt'), ['...txt', true]);
    assert.deepEqual(inside('/p/..hidden/..b'), ['..hidden/..b', true]);
    assert.deepEqual(inside('..'), ['/', false]);
    assert.deepEqual(inside('../x.txt'), ['/x.txt', false]);
    assert.deepEqual(inside('..notes.txt', 'C:\\p'), ['..notes.txt', true]);
    assert.deepEqual(inside('..\\x.txt', 'C:\\p'), ['C:\\x.txt', false]);
  });

  it("edit replay: a lone CR is a line end, as in Pi 1.6 (normalizeToLF): it comes out as the file's ending (LF here, CRLF in a CRLF file)", () => {
    assert.deepEqual(replayEdits('one\rtwo\nthree\n', [{ oldText: 'three', newText: '3' }]), { ok: true, text: 'one\ntwo\n3\n' });
    assert.deepEqual(replayEdits('one\rtwo\n', [{ oldText: 'one\ntwo', newText: 'x\ry' }]), { ok: true, text: 'x\ny\n' });
    assert.deepEqual(replayEdits('a\r\nb\rc\r\n', [{ oldText: 'c', newText: 'C' }]), { ok: true, text: 'a\r\nb\r\nC\r\n' });
  });

  it('edit replay: exact Pi semantics, linear search', () => {
    assert.deepEqual(replayEdits('a b a', [{ oldText: 'a', newText: 'x' }]), {
      ok: false,
      reason: 'edits[0].oldText occurs more than once in the known content',
    });
    assert.deepEqual(
      replayEdits('abc', [
        { oldText: 'ab', newText: '1' },
        { oldText: 'bc', newText: '2' },
      ]).ok,
      false,
    );
    assert.deepEqual(
      replayEdits('abc', [
        { oldText: 'a', newText: 'A' },
        { oldText: 'c', newText: 'C' },
      ]),
      { ok: true, text: 'AbC' },
    );
    assert.deepEqual(replayEdits('abc', [{ oldText: 'b', newText: 'b' }]).ok, false, 'no change is an error in Pi');
    const hay = 'a'.repeat(200000);
    assert.deepEqual(findOccurrences(hay, `${'a'.repeat(100000)}b`), { count: 0, first: -1 });
    assert.deepEqual(findOccurrences(`${hay}b`, `${'a'.repeat(100000)}b`), { count: 1, first: 100000 });
  });
});

describe('restore to an entry (engine)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-files-'));
  });
  afterEach(() => fsp.rm(dir, { recursive: true, force: true }));

  it('04-split-turn: files the session left on disk are restored; an edited-since file is skipped; a created one is a deletion candidate', async () => {
    const index = await loadSession(oracle('04-split-turn'));
    const candidates = restoreCandidates(index, index.indexOf('a241a739'));
    assert.deepEqual(candidates.map((c) => c.path).sort(), ['docs/AUDIT.md', 'docs/guide-2.md', 'docs/guide-5.md', 'docs/guide-8.md']);
    for (const c of candidates) {
      await fsp.mkdir(path.join(dir, 'docs'), { recursive: true });
      await fsp.writeFile(path.join(dir, c.path), text(c.expected)!);
    }
    await fsp.appendFile(path.join(dir, 'docs/guide-8.md'), 'changed by the user\n');
    const decisions = new Map<string, any>();
    for (const c of candidates) decisions.set(c.path, decideRestore(c, await diskState(dir, c.path)));
    assert.equal(decisions.get('docs/guide-2.md').action, 'restore');
    assert.equal(decisions.get('docs/guide-2.md').text, readResultText(index, '8d37e311', 'docs/guide-2.md'));
    assert.equal(decisions.get('docs/guide-5.md').action, 'restore');
    assert.equal(decisions.get('docs/guide-8.md').action, 'skip');
    assert.equal(decisions.get('docs/guide-8.md').reason, 'changed on disk since the session last wrote it');
    assert.equal(
      decisions.get('docs/guide-8.md').chooseText,
      readResultText(index, '7dfac95d', 'docs/guide-8.md'),
      'the user may still choose the target after a diff',
    );
    assert.equal(decisions.get('docs/AUDIT.md').action, 'delete');
  });

  it('undetermined contents are skipped with the reason (03-tree)', async () => {
    const index = await loadSession(oracle('03-tree'));
    const byPath = new Map(
      restoreCandidates(index, index.indexOf('9ae2613d')).map((c) => [
        c.path,
        decideRestore(c, { kind: 'file', sha256: sha256('x'), size: 1 }),
      ]),
    );
    assert.equal(byPath.get('src/math.js')!.action, 'skip');
    assert.match((byPath.get('src/math.js') as any).reason, /current content is not determined.*names it/);
    assert.ok((byPath.get('src/math.js') as any).chooseText, 'the target is known: the user may choose it');
    assert.match((byPath.get('src/index.js') as any).reason, /never showed its whole content/);
  });

  it('refuses paths that leave the working directory', async () => {
    const outside = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-outside-'));
    try {
      await fsp.mkdir(path.join(dir, 'real'));
      await fsp.symlink(outside, path.join(dir, 'escape'));
      await fsp.writeFile(path.join(outside, 'f.txt'), 'x');
      await fsp.symlink(path.join(outside, 'f.txt'), path.join(dir, 'link.txt'));
      assert.deepEqual(await safeLocation(dir, '../x'), { ok: false, reason: 'path leads out of the working directory (..)' });
      assert.deepEqual(await safeLocation(dir, 'a/../../x'), { ok: false, reason: 'path leads out of the working directory (..)' });
      assert.deepEqual(await safeLocation(dir, '/etc/passwd'), { ok: false, reason: 'not a relative path' });
      assert.deepEqual(await safeLocation(dir, 'escape/f.txt'), {
        ok: false,
        reason: 'a symbolic link leads out of the working directory',
      });
      assert.deepEqual(await safeLocation(dir, 'escape/new/deeper.txt'), {
        ok: false,
        reason: 'a symbolic link leads out of the working directory',
      });
      assert.deepEqual(await safeLocation(dir, 'link.txt'), { ok: false, reason: 'is a symbolic link' });
      assert.equal((await safeLocation(dir, 'real/new.txt')).ok, true);
      const d = decideRestore(
        {
          absPath: '/x',
          path: 'escape/f.txt',
          insideCwd: true,
          target: { state: 'known', text: 'a' },
          expected: { state: 'known', text: 'x' },
        },
        await diskState(dir, 'escape/f.txt'),
      );
      assert.equal(d.action, 'skip');
    } finally {
      await fsp.rm(outside, { recursive: true, force: true });
    }
  });
});
