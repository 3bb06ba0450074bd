/**
 * Issue 32 item 2: a file is modified only after a write or edit that
 * succeeded. What Arbor writes (the summary's `<modified-files>` block and
 * its `details`) leaves out a path every write of which failed; the plan
 * keeps Pi's lists (every path a write was called on), as Pi prepares them.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { compactSession, proposeCompaction, type CompactionProposal } from '../../../src/engine/operations/compact';
import { navigateSession, type NavigationResult } from '../../../src/engine/operations/navigate';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { createFileOps, writtenFileLists } from '../../../src/engine/compaction/fileOps';
import type { CompactionEntry } from '../../../src/engine/session/types';

const env = { PI_CODING_AGENT_DIR: os.tmpdir() };

async function copy(name: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-written-'));
  const file = path.join(dir, name);
  await fsp.copyFile(fixturePath('sessions', name), file);
  return file;
}

describe('files a summary lists as modified (issue 32 item 2)', () => {
  const summarizer = createOfflineSummarizer();

  it('a compaction leaves out the path whose only write failed, in its text and its details', async () => {
    const file = await copy('failed-write.jsonl');
    const r = await compactSession({ file, summarizer, estimator: 'chars', compaction: { keepRecentTokens: 10 }, allowLarger: true, env });
    assert.equal(r.kind, 'compacted');
    const entry = (r as { entry: CompactionEntry }).entry;
    assert.deepEqual(entry.details, { readFiles: ['notes'], modifiedFiles: ['notes/fixme.txt'] });
    const parsed = parseSummary(entry.summary);
    assert.deepEqual(parsed.modifiedFiles, ['notes/fixme.txt']);
    assert.deepEqual(parsed.readFiles, ['notes']);
    assert.doesNotMatch(entry.summary, /<modified-files>\n(?:.*\n)*notes\n/);
  });

  it("the proposal's plan keeps Pi's lists: the failed write is among its modified files", async () => {
    const file = await copy('failed-write.jsonl');
    const r = await proposeCompaction({ file, summarizer, estimator: 'chars', compaction: { keepRecentTokens: 10 }, env });
    assert.equal(r.kind, 'proposal');
    const p = r as CompactionProposal;
    assert.deepEqual(p.plan.modifiedFiles, ['notes', 'notes/fixme.txt']);
    assert.deepEqual(p.details, { readFiles: ['notes'], modifiedFiles: ['notes/fixme.txt'] });
  });

  it('a branch summary of the branch with the failed write leaves it out too', async () => {
    const file = await copy('failed-write.jsonl');
    const r = await navigateSession({ file, targetId: 'u1', summarize: true, summarizer, estimator: 'chars', env });
    const s = (r as NavigationResult).summaryEntry;
    assert.ok(s, 'a branch summary was written');
    assert.deepEqual(s.details, { readFiles: ['notes'], modifiedFiles: ['notes/fixme.txt'] });
    assert.deepEqual(parseSummary(s.summary).modifiedFiles, ['notes/fixme.txt']);
  });

  it('a path an earlier checkpoint listed stays; one never written but read is listed as read', () => {
    const ops = createFileOps();
    ops.read.add('b.txt');
    const lists = { readFiles: ['c.txt'], modifiedFiles: ['a.txt', 'b.txt', 'd.txt'] };
    const unwritten = (f: string) => f !== 'd.txt';
    assert.deepEqual(writtenFileLists(lists, { ops, unwritten, earlier: new Set(['a.txt']) }), {
      readFiles: ['b.txt', 'c.txt'],
      modifiedFiles: ['a.txt', 'd.txt'],
    });
    assert.equal(writtenFileLists(lists, { ops, unwritten: () => false }), lists);
  });
});
