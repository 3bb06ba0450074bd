// Issue 22: what a summary entry replaced has one home. The summary panel's "replaced" list
// (engine/compaction/compactedSpan.ts, engine/branch/summarizedBranch.ts) and the span whose messages
// `arbor check-summary` and the panel's retention checklist read (engine/summarize/retention/spans.ts) are
// the same entries, on every summary of every fixture; hostile ids give an empty or whole span, never a throw.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, jsonlFixtures } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { compactedEntries, compactedSpan } from '../../../src/engine/compaction/compactedSpan';
import { summarizedBranchEntries } from '../../../src/engine/branch/summarizedBranch';
import { entrySource } from '../../../src/engine/summarize/retention';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import type { FactSource } from '../../../src/engine/summarize/retention/facts';

/** Entry ids of the messages a retention source reads. */
function sourceIds(source: FactSource): string[] {
  const m = source.messages;
  if (Array.isArray(m)) return (m as { entryId: string | null }[]).map((x) => String(x.entryId));
  const span = m as Extract<FactSource['messages'], { entryIdAt: unknown }>;
  return Array.from({ length: span.length }, (_, k) => String(span.entryIdAt(k)));
}

/** The panel's list for the summary at `i`. */
function replaced(index: SessionIndex, i: number): string[] {
  const list = index.record(i).type === 'compaction' ? compactedEntries(index, i) : summarizedBranchEntries(index, i);
  return list.map((x) => index.record(x).id);
}

/** A copy of a fixture with the entry `id` changed by `edit`. */
async function edited(dir: string, fixture: string, id: string, edit: (e: Record<string, unknown>) => void): Promise<SessionIndex> {
  const lines = fs.readFileSync(fixturePath('pi-oracle', 'fixtures', `${fixture}.jsonl`), 'utf8').split('\n');
  const out = lines.map((l) => {
    if (!l.trim()) return l;
    const e = JSON.parse(l) as Record<string, unknown>;
    if (e.id !== id) return l;
    edit(e);
    return JSON.stringify(e);
  });
  const file = path.join(dir, `${fixture}-${id}-${Math.random().toString(36).slice(2)}.jsonl`);
  await fsp.writeFile(file, out.join('\n'));
  return loadSession(file);
}

describe('what a summary replaced: one span for the panel and the retention check', () => {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-span-'));
  });
  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('on every compaction and branch summary of every fixture, the panel lists the entries whose messages the check reads', async () => {
    let compactions = 0;
    let branches = 0;
    for (const file of jsonlFixtures()) {
      let index: SessionIndex;
      try {
        index = await loadSession(file);
      } catch {
        continue; // a fixture Arbor refuses to open has no panel
      }
      for (let i = 0; i < index.entryCount; i++) {
        const type = index.record(i).type;
        if (type !== 'compaction' && type !== 'branch_summary') continue;
        const list = replaced(index, i);
        const source = entrySource(index, i);
        const read = [...new Set(sourceIds(source))];
        const where = `${path.relative(fixturePath(), file)} ${index.record(i).id}`;
        if (index.agent !== 'pi') {
          // Another agent's summaries follow its own rules: the check reads nothing and says why.
          assert.match(String(source.cannotCheck), /session: its summaries follow/, where);
          assert.deepEqual(read, [], where);
          continue;
        }
        if (type === 'compaction') {
          compactions++;
          // The panel lists what the file holds; the check reads the context, where a context_edit may have removed a message.
          const removed = new Set<string>();
          for (let k = 0; k < index.entryCount; k++) {
            const edit = index.record(k).type === 'context_edit' ? index.entryOfType(k, 'context_edit') : undefined;
            if (edit && edit.replacement == null && typeof edit.targetId === 'string') removed.add(edit.targetId);
          }
          assert.deepEqual(
            read,
            list.filter((id) => !removed.has(id)),
            where,
          );
        } else {
          branches++;
          // A branch summary reads tool results through their calls: what it reads is a part of the list, in order.
          assert.deepEqual(
            read,
            list.filter((id) => read.includes(id)),
            where,
          );
          assert.ok(list.length >= read.length, where);
        }
      }
    }
    assert.ok(compactions >= 5 && branches >= 2, `fixtures hold summaries: ${compactions} compactions, ${branches} branch summaries`);
  });

  it('the second compaction of 02-compaction replaced what follows the first one, from its kept entries', async () => {
    const index = await loadSession(fixturePath('pi-oracle', 'fixtures', '02-compaction.jsonl'));
    const first = index.indexOf('e263b7bb');
    const second = index.indexOf('f57ff824');
    const span = compactedSpan(index, second)!;
    assert.equal(span.projection.entries[0], first, 'the context at its parent starts with the first compaction');
    assert.ok(!span.positions.includes(0), 'the older summary is not replaced again');
    const firstKept = index.entryOfType(first, 'compaction')!.firstKeptEntryId;
    assert.equal(replaced(index, second)[0], firstKept, "it starts at the first compaction's kept entry");
    const kept = index.entryOfType(second, 'compaction')!.firstKeptEntryId;
    assert.equal(index.record(span.keptIndex).id, kept);
    assert.ok(!replaced(index, second).includes(String(kept)));
  });

  it('hostile ids: a firstKeptEntryId not in the context replaces the whole context; an unknown fromId nothing; no parent nothing', async () => {
    // (An id of the wrong type is refused when the file is read: the entry is skipped with a diagnostic.)
    // e263b7bb is the older compaction, 30517857 an entry it replaced: neither is in the context at f57ff824's parent.
    for (const bad of ['nope', '', 'e263b7bb', 'f57ff824', '30517857']) {
      const index = await edited(dir, '02-compaction', 'f57ff824', (e) => (e.firstKeptEntryId = bad));
      const i = index.indexOf('f57ff824');
      const span = compactedSpan(index, i)!;
      assert.equal(span.positions.length, span.projection.length - 1, `${JSON.stringify(bad)}: everything after the older summary`);
      assert.equal(span.keptIndex, index.parentIndex(i));
      assert.deepEqual(replaced(index, i), [...new Set(sourceIds(entrySource(index, i)))]);
    }
    for (const bad of ['nope', '']) {
      const index = await edited(dir, '03-tree', 'b0d9510b', (e) => (e.fromId = bad));
      assert.deepEqual(replaced(index, index.indexOf('b0d9510b')), [], JSON.stringify(bad));
    }
    const root = await edited(dir, '02-compaction', 'e263b7bb', (e) => (e.parentId = null));
    assert.equal(compactedSpan(root, root.indexOf('e263b7bb')), null);
    assert.deepEqual(compactedEntries(root, root.indexOf('e263b7bb')), []);
    const notCompaction = await loadSession(fixturePath('pi-oracle', 'fixtures', '01-plain.jsonl'));
    assert.deepEqual(compactedEntries(notCompaction, 1), []);
    assert.deepEqual(summarizedBranchEntries(notCompaction, 1), []);
  });
});
