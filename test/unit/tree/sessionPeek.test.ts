// Issue 8 item 1: a session row's facts from a bounded read (head, tail, stat), exact or marked as estimated.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSession } from '../../../bench/generateSession';
import { loadSession } from '../../../src/engine/session/loadSession';
import { peekSession, peekTitle } from '../../../src/engine/tree/sessionPeek';
import { fixturePath } from '../../support/fixtures';

describe('session peek (session rows)', function () {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-peek-'));
  });
  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('names a session by its session_info, else its first user message; counts entries exactly in small files', async () => {
    const misc = await peekSession(fixturePath('pi-oracle', 'fixtures', '05-misc.jsonl'));
    assert.equal(peekTitle(misc), 'misc: models, custom messages, errors');
    const index = await loadSession(fixturePath('pi-oracle', 'fixtures', '05-misc.jsonl'));
    assert.equal(misc.entryCount, index.entryCount);
    assert.equal(misc.entryCountExact, true);
    assert.equal(misc.id, index.header.id);
    assert.equal(misc.cwd, index.header.cwd);
    assert.equal(misc.lastActivityMs, Date.parse(String((index.entry(index.entryCount - 1) as { timestamp: string }).timestamp)));
    const plain = await peekSession(fixturePath('pi-oracle', 'fixtures', '04-split-turn.jsonl'));
    assert.match(String(peekTitle(plain)), /^Give me a quick overview of the docs folder/);
  });

  it('on a large file reads only its head and tail: the newest name and last activity from the tail, an estimated count', async () => {
    const file = path.join(dir, 'big.jsonl');
    await generateSession({ file, targetBytes: 6 * 1024 * 1024, seed: 3 });
    const named = { type: 'session_info', id: 'name0001', parentId: null, timestamp: '2030-01-02T03:04:05.000Z', name: 'the   late\nname' };
    await fsp.appendFile(file, `${JSON.stringify(named)}\n`);
    const index = await loadSession(file);
    const peek = await peekSession(file, { exactCountBytes: 1024 * 1024 });
    assert.equal(peek.entryCountExact, false);
    assert.equal(peekTitle(peek), 'the late name', 'one line');
    assert.equal(peek.lastActivityMs, Date.parse(named.timestamp));
    // An estimate from 128 KB of a 6 MB file: within 25 % of the real count.
    assert.ok(Math.abs(peek.entryCount - index.entryCount) / index.entryCount < 0.25, `${peek.entryCount} vs ${index.entryCount}`);
    const exact = await peekSession(file);
    assert.equal(exact.entryCountExact, true);
    assert.equal(exact.entryCount, index.entryCount);
  });

  it('hostile files: garbage lines, a line longer than the head, no header, a BOM, an empty file', async () => {
    const file = path.join(dir, 'hostile.jsonl');
    const long = 'x'.repeat(200_000);
    await fsp.writeFile(
      file,
      `\ufeff{"type":"session","id":"h1","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z"}\nnot ` +
        `json\n[1,2]\n{"type":"message","id":"a","parentId":null,"timestamp":"nope","message":{"role":"user","content":"${long}"}}\n`,
    );
    const peek = await peekSession(file, { headBytes: 4096, tailBytes: 4096, exactCountBytes: 1024 });
    assert.equal(peek.id, 'h1');
    assert.equal(peek.firstUserMessage, undefined, 'the cut-off line is not guessed at');
    assert.equal(peek.lastActivityMs, undefined, 'no valid timestamp');
    const small = await peekSession(file);
    assert.equal(small.entryCount, 3);
    assert.equal(small.firstUserMessage!.length, 80);
    const empty = path.join(dir, 'empty.jsonl');
    await fsp.writeFile(empty, '');
    const e = await peekSession(empty);
    assert.deepEqual([e.entryCount, e.id, peekTitle(e)], [0, '', undefined]);
  });
});
