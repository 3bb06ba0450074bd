// The XSS fixture (test/fixtures/xss/payloads.json) and the hostile session built from it stay valid:
// enough payloads, a session Arbor loads without a diagnostic, each payload in every place the UI test looks.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { hostileSession, loadPayloads } from '../../support/xss/hostileSession';

describe('XSS fixture', () => {
  it('builds a valid session with every payload in summaries, files, messages, tool output and labels', async () => {
    const payloads = loadPayloads('http://127.0.0.1:9/xss');
    assert.ok(payloads.length >= 20, `${payloads.length} payloads`);
    assert.strictEqual(new Set(payloads.map((p) => p.id)).size, payloads.length, 'unique ids');
    for (const p of payloads) assert.ok(!p.payload.includes('\n') && !p.payload.includes('{{CANARY}}'), p.id);
    const s = hostileSession(payloads, { cwd: '/nowhere' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-xss-'));
    try {
      const file = path.join(dir, 's.jsonl');
      fs.writeFileSync(file, s.text);
      const index = await loadSession(file);
      assert.deepStrictEqual(index.diagnostics, []);
      const compaction = index.entryById(s.compactionId) as { summary: string; details: { readFiles: string[]; modifiedFiles: string[] } };
      const branch = index.entryById(s.branchSummaryId) as { summary: string; details: { readFiles: string[] } };
      const labels = [...index.labels().values()];
      for (const p of payloads) {
        assert.ok(compaction.summary.includes(s.bullet(p)) && branch.summary.includes(s.bullet(p)), `${p.id} in both summaries`);
        assert.ok(
          compaction.details.readFiles.includes(p.payload) &&
            compaction.details.modifiedFiles.includes(p.payload) &&
            branch.details.readFiles.includes(p.payload),
          `${p.id} in the file lists`,
        );
        assert.ok(labels.includes(p.payload), `${p.id} as a label`);
      }
      const path_ = index.pathTo(index.leafIndex).map((i) => index.record(i).id);
      assert.ok(path_.includes(s.compactionId) && path_.includes(s.branchSummaryId), 'both summaries on the active path');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
