// The one parser of command arguments (src/vscode/tree/commandTarget.ts, no vscode import): every shape VS Code,
// a test or another extension hands a command, and hostile ones, each either a typed target or a clear error.
import * as assert from 'assert';
import {
  CommandTargetError,
  parseCommandTarget,
  parseEntryArgs,
  targetEntry,
  targetFile,
  targetNode,
} from '../../../src/vscode/tree/commandTarget';

const file = '/tmp/s/session.jsonl';

function fails(value: unknown, pattern: RegExp): void {
  assert.throws(
    () => parseCommandTarget(value),
    (err: unknown) => err instanceof CommandTargetError && pattern.test(err.message),
    `${String(pattern)} for ${typeof value}`,
  );
}

describe('command targets', () => {
  it('nothing is none', () => {
    assert.deepStrictEqual(parseCommandTarget(undefined), { kind: 'none' });
    assert.deepStrictEqual(parseCommandTarget(null), { kind: 'none' });
    assert.strictEqual(targetFile(parseCommandTarget(undefined)), undefined);
  });

  it('a path string and a URI name a session', () => {
    assert.deepStrictEqual(parseCommandTarget(file), { kind: 'session', file });
    // A vscode.Uri: its fsPath getter lives on the prototype.
    class FakeUri {
      readonly scheme = 'file';
      get fsPath(): string {
        return file;
      }
    }
    assert.deepStrictEqual(parseCommandTarget(new FakeUri()), { kind: 'session', file });
  });

  it('tree rows come back typed, copied field by field', () => {
    const session = parseCommandTarget({ type: 'session', file, extra: { deep: 1 } });
    assert.deepStrictEqual(session, { kind: 'session', file, node: { type: 'session', file } });
    const entry = parseCommandTarget({ type: 'entry', file, entryId: 'a1b2c3d4', index: 3, offset: 120 });
    assert.deepStrictEqual(targetEntry(entry), { file, entryId: 'a1b2c3d4' });
    assert.deepStrictEqual(targetNode(entry), { type: 'entry', file, entryId: 'a1b2c3d4', index: 3, offset: 120 });
    const branch = parseCommandTarget({ type: 'branch', file, start: 4, startId: 'b', offset: 9 });
    assert.strictEqual(branch.kind, 'branch');
    assert.strictEqual(targetEntry(branch), undefined);
    const more = parseCommandTarget({ type: 'more', file, line: -1, direction: 'earlier' });
    assert.deepStrictEqual(targetNode(more), { type: 'more', file, line: -1, direction: 'earlier' });
    const notice = parseCommandTarget({ type: 'notice', file, message: 'm', severity: 'error' });
    assert.strictEqual(notice.kind, 'row');
  });

  it('an object from a test or another extension names a session or an entry', () => {
    assert.deepStrictEqual(parseCommandTarget({ file }), { kind: 'session', file });
    assert.deepStrictEqual(parseCommandTarget({ file, entryId: 'e1' }), { kind: 'entry', file, entryId: 'e1' });
    // An entry row without its position (as tests hand it): an entry, no tree node.
    assert.deepStrictEqual(parseCommandTarget({ type: 'entry', file, entryId: 'e1' }), { kind: 'entry', file, entryId: 'e1' });
    assert.deepStrictEqual(parseCommandTarget({ type: 'entry', file, entryId: 'e1', index: 5 }), { kind: 'entry', file, entryId: 'e1' });
  });

  it('(sessionFile, entryId) arguments', () => {
    assert.deepStrictEqual(parseEntryArgs(file, 'e1'), { kind: 'entry', file, entryId: 'e1' });
    assert.deepStrictEqual(parseEntryArgs({ type: 'entry', file, entryId: 'e1' }, undefined), { kind: 'entry', file, entryId: 'e1' });
    assert.throws(() => parseEntryArgs(file, 42), /the entry id must be a string \(an entry id\), got a number/);
    assert.throws(() => parseEntryArgs(['x'], 'e1'), /the session file path must be a string .* got an array of 1/);
  });

  it('the wrong shape is a clear error, never a crash or a guess', () => {
    fails(42, /expected a session or an entry .*; got a number/);
    fails(true, /got a boolean/);
    fails([file], /got an array of 1/);
    fails(() => file, /got a function/);
    fails({}, /got an object without a file/);
    fails({ file: 7 }, /^file must be a string \(a session file path\), got a number$/);
    fails({ file: { file } }, /file must be a string .* got an object/);
    fails({ file, entryId: ['x'] }, /entryId must be a string \(an entry id\), got an array of 1/);
    fails({ file, entryId: '' }, /entryId must be 1 to 200 characters/);
    fails({ file, entryId: 'x'.repeat(10_000) }, /entryId must be 1 to 200 characters \(got 10000\)/);
    fails('', /is empty/);
    fails('   ', /is empty/);
    fails('a\0b', /NUL/);
    fails('x'.repeat(5000), /5000 characters long/);
    fails({ type: 'entrie', file }, /unknown type \(a string\)/);
    fails({ type: 7, file }, /unknown type \(a number\)/);
    fails({ type: 'entry', file }, /an entry row's entryId must be a string/);
    fails({ type: 'entry', file, entryId: 'e', index: 1, offset: -5 }, /offset must be a byte offset/);
    fails({ type: 'entry', file, entryId: 'e', index: 1.5, offset: 0 }, /index must be a whole number/);
    fails({ type: 'branch', file, start: 1, startId: 'b', offset: Number.NaN }, /offset must be a byte offset/);
    fails({ type: 'more', file, line: 0, direction: 'sideways' }, /direction must be 'earlier' or 'later'/);
    fails({ type: 'more', file, line: 0, direction: 'later', lineId: 'x' }, /lineOffset must be a byte offset/);
    fails({ type: 'session', file: null }, /a session row's file must be a string/);
    fails({ scheme: 'file', fsPath: '' }, /the URI's path is empty/);
  });

  it('a deeply nested or huge value costs nothing (no walk, no copy of its contents)', () => {
    let deep: unknown = { file };
    for (let i = 0; i < 100_000; i++) deep = { file: deep };
    fails(deep, /file must be a string .* got an object/);
    const big = new Array(1_000_000).fill(file);
    fails(big, /got an array of 1000000/);
  });
});
