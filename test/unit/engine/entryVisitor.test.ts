/**
 * A load with an EntryVisitor (each line parsed once, during the load: what
 * `arbor tree` uses) builds the same index as a load without one, on every
 * reader (whole buffer, full and fast; streamed in small chunks) and on
 * damaged files, and visits exactly the entries whose lines parse, with the
 * entries the index gives for them.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sessionArb, renderSession } from '../../support/arbSession';
import { mutate, mutationArb } from '../../support/sessionMutations';
import { indexSessionBuffer } from '../../../src/engine/session/loadSession';
import { isPlaceholderEntry } from '../../../src/engine/session/parseLine';
import { entryTypeOf } from '../../../src/engine/session/entryKinds';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import type { SessionEntry } from '../../../src/engine/session/types';
import { loadWhole, loadedSession, streamedSession } from '../../support/loadWhole';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const fixtures = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'sessions');

/** What an index says of its file: records (not their cached bodies), every entry, and the diagnostics once every entry was read. */
function describe_(index: SessionIndex) {
  const records = [];
  const entries = [];
  for (let i = 0; i < index.entryCount; i++) {
    const { id, parentId, type, role, line, start, end } = index.record(i);
    records.push({ id, parentId, type, role, line, start, end, parent: index.parentIndex(i) });
    entries.push(index.entry(i));
  }
  return { records, entries, leaf: index.leafId, diagnostics: index.diagnostics.map((d) => `${d.line}: ${d.message}`) };
}

type Reader = (onEntry?: (i: number, e: SessionEntry) => void) => Promise<SessionIndex | undefined>;

async function assertSameWithVisitor(read: Reader, label: string): Promise<void> {
  const visited = new Map<number, SessionEntry>();
  let plain: SessionIndex | undefined;
  try {
    plain = await read();
  } catch (err) {
    await assert.rejects(
      read(() => undefined),
      { message: (err as Error).message },
      `${label}: the same error with a visitor`,
    );
    return;
  }
  const withVisitor = await read((i, e) => {
    assert.ok(!visited.has(i), `${label}: entry ${i} visited twice`);
    visited.set(i, e);
  });
  if (!plain || !withVisitor) {
    assert.equal(withVisitor, plain, label);
    return;
  }
  const a = describe_(plain);
  const b = describe_(withVisitor);
  assert.deepEqual(b, a, label);
  for (let i = 0; i < withVisitor.entryCount; i++) {
    const e = withVisitor.entry(i);
    const rec = withVisitor.record(i);
    if (visited.has(i)) assert.deepEqual(visited.get(i), e, `${label}: entry ${i} as visited`);
    // Not visited: only a line that did not parse (a placeholder), one too long to parse, or one whose keys the scan read otherwise (a key written twice).
    else {
      const readOtherwise =
        e.id !== rec.id ||
        entryTypeOf(e) !== rec.type ||
        e.parentId !== rec.parentId ||
        (e.type === 'message' && e.message.role !== rec.role);
      assert.ok(
        isPlaceholderEntry(e) || readOtherwise || rec.end - rec.start > 16 * 1024 * 1024 || plain.version < 2,
        `${label}: entry ${i} (line ${rec.line}) was not visited`,
      );
    }
  }
  for (const i of visited.keys()) assert.ok(i < withVisitor.entryCount, `${label}: visited ${i} of ${withVisitor.entryCount}`);
}

describe('loading with an entry visitor', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-visitor-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function readers(buf: Buffer): [string, Reader][] {
    const file = path.join(dir, 'v.jsonl');
    writeFileSync(file, buf);
    return [
      ['buffer full', async (onEntry) => indexSessionBuffer(file, buf, { validation: 'full', onEntry })],
      ['buffer fast', async (onEntry) => loadWhole(indexSessionBuffer(file, buf, { validation: 'fast', onEntry }))],
      ['streamed, 64-byte chunks', (onEntry) => streamedSession(file, { chunkSize: 64, onEntry })],
      ['loadSession fast', (onEntry) => loadedSession(file, { validation: 'fast', onEntry })],
    ];
  }

  it('builds the same index and visits every entry that parses, on damaged generated sessions', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.array(mutationArb, { maxLength: 5 }), async (steps, mutations) => {
        const buf = mutate(renderSession(steps), mutations);
        for (const [label, read] of readers(buf)) await assertSameWithVisitor(read, label);
      }),
      { numRuns: 150 },
    );
  });

  it('reads a non-ASCII id the same way in every reader (the key scan once read its bytes as Latin-1)', async () => {
    const lines = [
      '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}',
      '{"type":"message","id":"é1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
      '{"type":"message","id":"日本","parentId":"é1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"ok","timestamp":2}}',
    ];
    const buf = Buffer.from(`${lines.join('\n')}\n`);
    for (const [label, read] of readers(buf)) {
      const index = (await read())!;
      assert.deepEqual([index.record(0).id, index.record(1).id, index.parentIndex(1)], ['é1', '日本', 0], label);
      await assertSameWithVisitor(read, label);
    }
  });

  it('keeps no line alive through its ids: long ids read for a visitor are detached from the line they were read from', async () => {
    // 30 entries of 1 MB, each the child of the one before, with 36-character ids (another agent's UUIDs, say).
    const id = (k: number) => `${String(k).padStart(4, '0')}aaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee`;
    const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'];
    for (let k = 0; k < 30; k++) {
      const parent = k ? JSON.stringify(id(k - 1)) : 'null';
      lines.push(
        `{"type":"message","id":"${id(k)}","parentId":${parent},"timestamp":"2026-01-01T00:00:01.000Z",` +
          `"message":{"role":"user","content":[{"type":"text","text":"${'x'.repeat(1024 * 1024)}"}],"timestamp":${k}}}`,
      );
    }
    const file = path.join(dir, 'long-ids.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    gc();
    const before = process.memoryUsage().heapUsed;
    let visited = 0;
    const index = await streamedSession(file, { onEntry: () => visited++ });
    gc();
    const grownMB = (process.memoryUsage().heapUsed - before) / 1048576;
    assert.equal(visited, 30);
    assert.equal(index!.parentIndex(29), 28);
    assert.ok(grownMB < 8, `the index of 30 MB of lines holds ${grownMB.toFixed(1)} MB`);
  });

  it('a key written twice (JSON.parse reads the last, the key scan the first): the same index, the line not visited', async () => {
    const lines = [
      '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}',
      '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1},"id":"b2"}',
      '{"type":"message","id":"c3","parentId":"b2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"child of b2","timestamp":2}}',
      '{"type":"message","id":"d4","parentId":"c3","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"now ' +
        'custom","timestamp":3},"type":"custom","customType":"x"}',
      '{"type":"message","id":"e5","parentId":"d4","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"role ' +
        'twice","timestamp":4,"role":"assistant"}}',
    ];
    const buf = Buffer.from(`${lines.join('\n')}\n`);
    for (const [label, read] of readers(buf)) await assertSameWithVisitor(read, label);
  });

  it('visits plain message lines (read without JSON.parse) and the near-plain ones (escapes, surrogates, odd types) as the index reads them', async () => {
    // test/fixtures/plain-message-lines: lines the plain reader takes and lines written to fool it, as the entries of one session.
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
    const body = readFileSync(path.join(fixtures, '..', 'plain-message-lines', 'lines.jsonl'), 'utf8');
    const buf = Buffer.from(`${header}\n${body}`);
    let visits = 0;
    for (const [label, read] of readers(buf)) {
      await assertSameWithVisitor(read, `plain-message-lines, ${label}`);
      await read(() => visits++);
    }
    assert.ok(visits > 4 * 23, `${visits} visits`);
  });

  it('builds the same index on every session fixture (v1, v2, BOM and CRLF, truncated, cycles, hostile text)', async () => {
    for (const name of [
      'bom-crlf',
      'hostile-escapes',
      'invalid-lines-truncated-tail',
      'orphans-cycles-duplicates',
      'unknown-type-and-labels',
      'v1-linear',
      'v2-hookmessage',
      'header-only',
    ]) {
      const buf = readFileSync(path.join(fixtures, `${name}.jsonl`));
      for (const [label, read] of readers(buf)) await assertSameWithVisitor(read, `${name}, ${label}`);
    }
  });
});
