// Issue 34 item 5: one "verified" rule for Show File Changes and Restore Files. For the same file at the same entry, the
// change Show File Changes lists (the file's last change by that entry) and the restore plan to that entry give the
// same answer, in the same words (engine/files/contentVerdict.ts).
import * as assert from 'node:assert/strict';
import { loadSession } from '../../../src/engine/session/loadSession';
import { changesBy, historyToEntry, sessionFiles } from '../../../src/engine/files/sessionFiles';
import { decideRestore, restoreCandidates } from '../../../src/engine/files/restorePlan';
import { changeVerdict, contentVerdict } from '../../../src/engine/files/contentVerdict';
import { fixturePath } from '../../support/fixtures';

const FIXTURES = [
  fixturePath('files', 'bash-effects.jsonl'),
  fixturePath('files', 'reads-and-edits.jsonl'),
  ...['01-plain', '03-tree', '04-split-turn'].map((f) => fixturePath('pi-oracle', 'fixtures', `${f}.jsonl`)),
];

describe('one "verified" rule: Show File Changes and Restore Files agree', () => {
  for (const file of FIXTURES)
    it(`${file.split('/').slice(-2).join('/')}: at every entry, each file it changed gets the restore plan's verdict`, async () => {
      const index = await loadSession(file);
      const files = sessionFiles(index);
      let compared = 0;
      let unverified = 0;
      for (let i = 0; i < index.entryCount; i++) {
        const id = index.record(i).id;
        // Show File Changes on entry i, and on a branch ending at i (every entry of the path to it): judged at i.
        const history = historyToEntry(index, i, files);
        const path = new Set(index.pathTo(i).map((k) => index.record(k).id));
        const shown = [...changesBy(history, new Set([id])), ...changesBy(history, path)];
        if (!shown.length) continue;
        // Restore Files to entry i: each candidate's target at i (restorePlan.ts), decided against a disk that holds it.
        const candidates = new Map(restoreCandidates(index, i, { files }).map((c) => [c.path, c]));
        for (const f of shown) {
          const last = f.changes[f.changes.length - 1];
          const verdict = changeVerdict(f, last);
          const target = candidates.get(f.path)!.target;
          assert.deepEqual(verdict, contentVerdict(target), `${f.path} at ${id}`);
          compared++;
          if (verdict.verified) continue;
          unverified++;
          const decision = decideRestore({ ...candidates.get(f.path)!, expected: target }, { kind: 'missing' }, null);
          if (target.state === 'assumed')
            assert.equal(decision.action === 'skip' && decision.reason, `its content at the target is ${verdict.words}`);
        }
      }
      assert.ok(compared > 0, 'some entry changes a file');
      if (file.includes('bash-effects')) assert.ok(unverified > 0, 'a file a command may have changed since is not verified');
    });
});
