import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { lastRecordId, RecordTable } from '../../../src/engine/session/recordTable';
import type { EntryRecord } from '../../../src/engine/session/entryRecord';
import { readFileSync } from 'node:fs';
import { indexSessionBuffer } from '../../../src/engine/session/loadSession';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { streamSession } from '../../../src/engine/session/streamSession';
import type { SessionEntry } from '../../../src/engine/session/types';
import { jsonlFixtures } from '../../support/fixtures';
import { idArb } from '../../support/idArbitraries';

const fields = (r: EntryRecord) => ({
  id: r.id,
  parentId: r.parentId,
  type: r.type,
  role: r.role,
  line: r.line,
  chunk: r.chunk,
  start: r.start,
  end: r.end,
  mayHoldFileOps: r.mayHoldFileOps,
  entry: r.entry,
});

const chunk = Buffer.from('{"type":"message"}');
const recordArb: fc.Arbitrary<EntryRecord> = fc.record({
  // Pi's ids (packed by the table) and any other.
  id: idArb,
  parentId: fc.option(idArb, { nil: null }),
  // Hostile files: any type and role, hundreds of distinct ones.
  type: fc.oneof(fc.constantFrom('message', 'label', 'compaction'), fc.string()),
  role: fc.option(fc.oneof(fc.constantFrom('user', 'assistant', 'toolResult'), fc.string()), { nil: undefined }),
  line: fc.nat({ max: 2 ** 31 - 1 }),
  chunk: fc.constantFrom(null, chunk),
  // Offsets past 4 GB.
  start: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  end: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  mayHoldFileOps: fc.constantFrom(undefined, true, false),
  entry: fc.constantFrom(undefined, { type: 'label', id: 'l', parentId: null, timestamp: '' } as unknown as SessionEntry),
});

describe('the records of a session index, by column (issue 20 item 5)', () => {
  it('gives back every record as it was put in, past the first growth', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 0, maxLength: 2500 }), (records) => {
        const table = RecordTable.of(records);
        assert.equal(table.length, records.length);
        for (let i = 0; i < records.length; i++) assert.deepEqual(fields(table.view(i)), fields(records[i]));
        assert.equal(lastRecordId(table), records.length ? records[records.length - 1].id : undefined);
        assert.equal(lastRecordId(records), lastRecordId(table));
      }),
      { numRuns: 30 },
    );
  });

  it('a record view writes its entry, hint and line through to the table', () => {
    const base = {
      parentId: null,
      type: 'message',
      role: 'user',
      chunk: null,
      start: 0,
      end: 10,
      mayHoldFileOps: undefined,
      entry: undefined,
    };
    const table = RecordTable.of([
      { ...base, id: 'a', line: 1 },
      { ...base, id: 'b', line: 2 },
    ]);
    const entry = { type: 'label', id: 'b', parentId: 'a', timestamp: '' } as unknown as SessionEntry;
    const view = table.view(1);
    view.entry = entry;
    view.mayHoldFileOps = false;
    view.line = 0;
    assert.equal(table.view(1).entry, entry);
    assert.equal(table.hint(1), false);
    assert.equal(table.line(1), 0);
    assert.equal(table.view(0).entry, undefined);
    view.mayHoldFileOps = undefined;
    assert.equal(table.hint(1), undefined);
  });

  it('a streamed load and a whole-buffer load give the same records on every session fixture', async () => {
    let compared = 0;
    for (const file of jsonlFixtures()) {
      // The same reader (fast: message lines indexed unparsed) on the whole buffer, which keeps records in an array first.
      let whole: SessionIndex | undefined;
      try {
        whole = indexSessionBuffer(file, readFileSync(file), { validation: 'fast' });
      } catch {
        continue; // not a session
      }
      const streamed = await streamSession(file, { chunkSize: 4096 }).catch(() => undefined);
      if (!streamed) continue; // a version 1 file (never streamed)
      assert.equal(streamed.entryCount, whole.entryCount, file);
      for (let i = 0; i < whole.entryCount; i++) {
        const { id, parentId, type, role, line, start, end } = whole.record(i);
        const s: EntryRecord = streamed.record(i);
        assert.deepEqual(
          { id: s.id, parentId: s.parentId, type: s.type, role: s.role, line: s.line, start: s.start, end: s.end },
          {
            id,
            parentId,
            type,
            role,
            line,
            start,
            end,
          },
        );
        assert.equal(s.chunk, null);
      }
      compared++;
    }
    assert.ok(compared > 10, `${compared} fixtures compared`);
  });
});
