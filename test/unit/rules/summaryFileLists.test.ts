// Issue 22 item 1: a summary's file lists have one home (engine/summarize/summaryFileLists.ts). `arbor summary`
// prints the lists the summary panel shows: the entry's `details` lists, else the text's <read-files>/<modified-files>.
import * as assert from 'node:assert/strict';
import { jsonlFixtures } from '../../support/fixtures';
import { run } from '../../support/cliInProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { entryFields } from '../../../src/engine/session/entryKinds';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { summaryFileLists } from '../../../src/engine/summarize/summaryFileLists';
import { sanitizeOutput } from '../../../src/cli/output';

/** The items under `title:` in `arbor summary`'s text output. */
function listed(out: string, title: string): string[] {
  const lines = out.split('\n');
  const at = lines.indexOf(`${title}:`);
  if (at < 0) return [];
  const items: string[] = [];
  for (let k = at + 1; k < lines.length && lines[k].startsWith('  - '); k++) items.push(lines[k].slice(4));
  return items;
}

describe("a summary's file lists: arbor summary shows the panel's lists", () => {
  const files = jsonlFixtures();
  it('on every compaction and branch summary of the session fixtures', async () => {
    let checked = 0;
    let fromDetails = 0;
    for (const file of files) {
      const index = await loadSession(file).catch(() => null);
      if (!index) continue; // a fixture that is not a session (empty, bad header) has its own tests
      for (let i = 0; i < index.entryCount; i++) {
        const type = index.record(i).type;
        if (type !== 'compaction' && type !== 'branch_summary') continue;
        const entry = entryFields(index.entry(i));
        const text = typeof entry.summary === 'string' ? entry.summary : '';
        const lists = summaryFileLists(entry.details, parseSummary(text));
        const r = await run(['summary', file, '--entry', index.record(i).id]);
        if (r.code !== 0) continue; // an entry the CLI refuses (say, an invalid summary) is covered by its own tests
        assert.deepEqual(listed(r.out, 'Read files'), lists.readFiles.map(sanitizeOutput), `${file} ${index.record(i).id}`);
        assert.deepEqual(listed(r.out, 'Modified files'), lists.modifiedFiles.map(sanitizeOutput), `${file} ${index.record(i).id}`);
        checked++;
        if (entry.details && lists.readFiles.join() !== parseSummary(text).readFiles.join()) fromDetails++;
      }
    }
    assert.ok(checked >= 10, `${checked} summaries checked`);
    assert.ok(fromDetails >= 1, 'at least one fixture whose details differ from its text (base.jsonl e0000018)');
  });

  it('keeps only strings, and falls back per list', () => {
    const parsed = parseSummary('x\n\n<read-files>\nr.txt\n</read-files>\n\n<modified-files>\nm.txt\n</modified-files>');
    assert.deepEqual(summaryFileLists({ readFiles: ['a', 1, { toString: 1 }, 'b'] }, parsed), {
      readFiles: ['a', 'b'],
      modifiedFiles: ['m.txt'],
    });
    assert.deepEqual(summaryFileLists('details', parsed), { readFiles: ['r.txt'], modifiedFiles: ['m.txt'] });
    assert.deepEqual(summaryFileLists({ modifiedFiles: [] }, parsed), { readFiles: ['r.txt'], modifiedFiles: [] });
  });
});
