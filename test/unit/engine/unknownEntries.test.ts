/**
 * Issue 11 item 5: `SessionEntry` narrows on `type`. An entry of a type Arbor
 * does not know is its own member (type 'unknown', its original type kept),
 * shown as unknown, never in the context, and written back exactly as read by
 * every path that writes entries (upgrade, append).
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { upgradeSessionFile } from '../../../src/engine/session/upgrade';
import { appendEntries } from '../../../src/engine/session/writer';
import { entryFromObject, entryJson, entryTypeOf } from '../../../src/engine/session/entryKinds';
import { entryPreview } from '../../../src/engine/tree/entryPreview';
import { describeEntry } from '../../../src/engine/export/entryParts';
import { exportBranch } from '../../../src/engine/export/exportBranch';
import { entryContextMessages } from '../../../src/engine/context/entryMessages';
import type { SessionEntry } from '../../../src/engine/session/types';
import { loadedSession } from '../../support/loadWhole';

const UNKNOWN = {
  type: 'plugin_state',
  id: 'aaaa0002',
  parentId: 'aaaa0001',
  timestamp: '2026-01-01T00:00:02.000Z',
  payload: { nested: [1, 'two', null] },
  weird: null,
};
const LINES = [
  { type: 'session', version: 2, id: 'sess-unknown', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' },
  {
    type: 'message',
    id: 'aaaa0001',
    parentId: null,
    timestamp: '2026-01-01T00:00:01.000Z',
    message: { role: 'user', content: 'hello', timestamp: 1 },
  },
  UNKNOWN,
  {
    type: 'message',
    id: 'aaaa0003',
    parentId: 'aaaa0002',
    timestamp: '2026-01-01T00:00:03.000Z',
    message: { role: 'user', content: 'after', timestamp: 3 },
  },
].map((o) => JSON.stringify(o));

async function sessionFile(lines: string[]): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-unknown-'));
  const file = path.join(dir, 'session.jsonl');
  await fsp.writeFile(file, lines.join('\n') + '\n');
  return file;
}

/** Type-level: a switch over `type` narrows every member, the unknown one included, and is exhaustive. */
function kindName(e: SessionEntry): string {
  switch (e.type) {
    case 'message':
      return e.message.role;
    case 'model_change':
      return e.modelId;
    case 'thinking_level_change':
      return e.thinkingLevel;
    case 'compaction':
    case 'branch_summary':
      return e.summary;
    case 'custom':
    case 'custom_message':
      return e.customType;
    case 'label':
      return e.targetId;
    case 'session_info':
      return e.name ?? '';
    case 'context_edit':
      return e.targetId;
    case 'usage':
      return 'usage';
    case 'unknown':
      return `unknown:${e.originalType}`;
    default: {
      const none: never = e;
      return none;
    }
  }
}

describe('unknown entry types (issue 11 item 5)', () => {
  for (const validation of ['full', 'fast'] as const) {
    it(`load (${validation}): kept in the tree with its type, shown as unknown, not in the context`, async () => {
      const index = await loadedSession(await sessionFile(LINES), { validation });
      assert.equal(index.entryCount, 3);
      assert.deepEqual(index.diagnostics, []);
      const i = index.indexOf('aaaa0002');
      assert.equal(index.record(i).type, 'plugin_state');
      assert.equal(index.parentIndex(index.indexOf('aaaa0003')), i);
      const e = index.entry(i);
      assert.equal(e.type, 'unknown');
      assert.ok(e.type === 'unknown');
      assert.equal(e.originalType, 'plugin_state');
      assert.deepEqual(e.raw, UNKNOWN);
      assert.deepEqual([e.id, e.parentId, e.timestamp], [UNKNOWN.id, UNKNOWN.parentId, UNKNOWN.timestamp]);
      assert.equal(entryTypeOf(e), 'plugin_state');
      assert.equal(kindName(e), 'unknown:plugin_state');
      assert.deepEqual(entryPreview(e), { kind: 'unknown', title: 'plugin_state', text: '' });
      const d = describeEntry(e);
      assert.equal(d.title, 'plugin_state');
      assert.equal(d.role, 'plugin_state');
      assert.deepEqual(d.parts, [{ kind: 'meta', text: JSON.stringify({ payload: UNKNOWN.payload, weird: null }, null, 2) }]);
      assert.deepEqual(entryContextMessages(e), []);
      assert.equal(JSON.stringify(entryJson(e)), LINES[2]);
      assert.match(await exportBranch(index, { format: 'md' }), /plugin\\_state/);
    });
  }

  it('a known type is the parsed object itself; any other is wrapped', () => {
    const known = { type: 'label', id: 'b', parentId: null, timestamp: 't', targetId: 'a', label: 'x' };
    assert.equal(entryFromObject(known), known);
    const odd = { type: 'unknown', id: 'c', parentId: 7, timestamp: 12 };
    const wrapped = entryFromObject(odd);
    assert.ok(wrapped.type === 'unknown');
    assert.equal(wrapped.originalType, 'unknown');
    assert.equal(wrapped.raw, odd);
    assert.equal(wrapped.parentId, null);
    assert.equal(wrapped.timestamp, undefined);
    assert.equal(entryJson(wrapped), odd);
  });

  it('upgrade writes an unknown entry back byte for byte, type and all', async () => {
    const file = await sessionFile(LINES);
    await upgradeSessionFile(file);
    const lines = (await fsp.readFile(file, 'utf8')).split('\n');
    assert.equal(JSON.parse(lines[0]).version, 3);
    assert.deepEqual(lines.slice(1), [...LINES.slice(1), '']);
    const index = await loadedSession(file);
    assert.equal(index.entry(index.indexOf('aaaa0002')).type, 'unknown');
  });

  it('upgrade of a version 1 file keeps the unknown entry, with the id and parent it was given', async () => {
    const v1 = [
      JSON.stringify({ type: 'session', id: 'sess-v1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' }),
      JSON.stringify({ type: 'message', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'plugin_state', timestamp: 5, payload: [1] }),
    ];
    const file = await sessionFile(v1);
    const before = await loadedSession(file);
    const e = before.entry(1);
    assert.ok(e.type === 'unknown');
    assert.equal(e.parentId, before.record(0).id);
    await upgradeSessionFile(file);
    const written = JSON.parse((await fsp.readFile(file, 'utf8')).split('\n')[2]);
    assert.deepEqual(written, { type: 'plugin_state', timestamp: 5, payload: [1], id: e.id, parentId: before.record(0).id });
  });

  it('append: existing lines stay as they are; an unknown type given to the writer is written as given', async () => {
    const file = await sessionFile(LINES);
    const original = await fsp.readFile(file, 'utf8');
    const index = await loadedSession(file);
    const [written] = await appendEntries(index, [{ type: 'plugin_state', payload: { v: 2 } }]);
    assert.ok(written.type === 'unknown');
    assert.equal(written.originalType, 'plugin_state');
    const text = await fsp.readFile(file, 'utf8');
    assert.ok(text.startsWith(original), 'nothing before the append changed');
    const line = JSON.parse(text.slice(original.length).trim());
    assert.deepEqual(line, { type: 'plugin_state', id: written.id, parentId: 'aaaa0003', timestamp: written.timestamp, payload: { v: 2 } });
    assert.equal(index.record(index.entryCount - 1).type, 'plugin_state');
  });
});
