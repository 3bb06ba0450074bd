/**
 * One "latest summary" rule (issue 22): `arbor summary` / `check-summary` without --entry show the summary the
 * extension's Show Summary shows for the same session and leaf (the integration test
 * test/integration/suite/commands.test.ts checks the extension against the same engine function).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { fixturePath, oracleCases } from '../../support/fixtures';
import { run } from '../../support/cliInProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { latestSummaryOnPath, newestSummaryInFile } from '../../../src/engine/tree/latestSummary';

const workspaceSessions = fs
  .readdirSync(fixturePath('workspace', '.pi', 'sessions'))
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => fixturePath('workspace', '.pi', 'sessions', f));

describe('the latest summary of a session: one rule for the CLI and the extension', () => {
  for (const file of [...oracleCases().map((c) => c.sessionFile), ...workspaceSessions]) {
    it(`${file.split('/').slice(-2).join('/')}: arbor summary and check-summary take the newest summary on the leaf's path`, async () => {
      const index = await loadSession(file);
      const latest = latestSummaryOnPath(index);
      for (const command of ['summary', 'check-summary']) {
        const r = await run([command, file, '--json']);
        if (latest < 0) {
          assert.equal(r.code, 2, r.err);
          const elsewhere = newestSummaryInFile(index);
          assert.match(
            r.err,
            elsewhere < 0 ? /has no compaction or branch summary/ : new RegExp(`on the leaf's path.*--entry ${index.record(elsewhere).id}`),
          );
          continue;
        }
        assert.equal(r.code, 0, r.err);
        assert.equal(JSON.parse(r.out).entryId, index.record(latest).id);
      }
    });
  }

  it('a summary on another branch is never the default (03-tree: branch summaries only on side branches)', async () => {
    const index = await loadSession(fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl'));
    assert.equal(latestSummaryOnPath(index), -1);
    assert.ok(newestSummaryInFile(index) >= 0);
  });
});
