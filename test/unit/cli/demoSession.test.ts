// Issue 21 item 5: the demo includes a session whose cwd is the demo workspace, with real files matching it,
// so Restore has something true to do (and the reasons shown are the real ones).
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDemoSession } from '../../../scripts/demoSession';
import { runCli } from '../../../src/cli/main';
import { loadSession } from '../../../src/engine/session/loadSession';
import { sessionFiles } from '../../../src/engine/files/sessionFiles';
import { fixturePath } from '../../support/fixtures';
import { planSessionCompaction } from '../../../src/engine/operations/sessionCompactionPlan';
import { estimatorByName } from '../../../src/engine/tokens/estimators';

describe('demo: a session working in the demo workspace', () => {
  let workspace: string;
  before(async () => {
    workspace = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-demo-ws-'));
    await fsp.cp(fixturePath('workspace'), workspace, { recursive: true });
  });
  after(() => fsp.rm(workspace, { recursive: true, force: true }));

  it("can be compacted with the workspace's Pi settings (issue 34: it does not end in a compaction)", async () => {
    const demo = await writeDemoSession(workspace);
    const index = await loadSession(demo.file);
    assert.notEqual(index.record(index.leafIndex).type, 'compaction');
    for (const estimator of ['tokenizer', 'chars'] as const) {
      const { plan, settings } = await planSessionCompaction(index, { estimator: estimatorByName(estimator) });
      assert.equal(settings.keepRecentTokens, 2000, "the workspace's .pi/settings.json");
      assert.equal(plan.kind, 'plan', plan.kind === 'nothing' ? plan.reason : '');
    }
  });

  it('points at the workspace, puts its files on disk as it left them, and restore to an earlier entry restores them', async () => {
    const demo = await writeDemoSession(workspace);
    const index = await loadSession(demo.file);
    assert.equal(index.header.cwd, workspace);
    assert.ok(demo.files.includes('docs/guide-2.md') && demo.files.includes('docs/AUDIT.md'), demo.files.join(', '));
    const out: string[] = [];
    const err: string[] = [];
    // An entry before the session's first edit (the user's first request's parent chain start).
    const before = index.record(2).id;
    const code = await runCli(['restore', demo.file, '--to', before, '--json', '--delete-created'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    assert.equal(code, 0, err.join('\n'));
    const report = JSON.parse(out.join('\n'));
    assert.ok(report.restored.includes('docs/guide-2.md'), JSON.stringify(report));
    assert.ok(report.deleted.includes('docs/AUDIT.md'), JSON.stringify(report));
    for (const s of report.skipped) assert.doesNotMatch(s.reason, /working directory .* does not exist/);
    const initial = sessionFiles(index).initial.get(path.join(workspace, 'docs', 'guide-2.md'));
    assert.ok(initial && initial.state === 'known');
    assert.equal(
      await fsp.readFile(path.join(workspace, 'docs', 'guide-2.md'), 'utf8'),
      initial.text,
      'guide-2.md is back to what the session first read',
    );
  });
});
