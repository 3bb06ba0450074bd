/** Issue 12 through the built `arbor` binary: the three rules of spec 4.8 and 6.5 on the Pi 1.6 fixture. */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { oracleCases, repoRoot } from '../../support/fixtures';

const cli = path.join(repoRoot, 'dist', 'cli.js');

function arborJson(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, ...args, '--json', '--estimator', 'chars'],
      { env: { ...process.env, PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-no-pi-dir') } },
      (err, stdout, stderr) => (err ? reject(new Error(`arbor ${args.join(' ')}: ${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

async function lines(file: string): Promise<any[]> {
  return (await fsp.readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('arbor CLI writes what Pi 1.6 writes (issue 12)', function () {
  const pi16 = oracleCases().find((c) => c.name === '01-pi16')!;
  let file: string;
  beforeEach(async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-cli-pi16-'));
    file = path.join(dir, 'session.jsonl');
    await fsp.copyFile(pi16.sessionFile, file);
  });

  it('a compaction carries the system message in effect, stamped with its own time', async () => {
    const r = await arborJson(['compact', file, '--keep-recent-tokens', '200']);
    const entry = (await lines(file)).at(-1);
    assert.equal(entry.type, 'compaction', JSON.stringify(r));
    assert.equal(entry.systemMessage?.role, 'system');
    assert.equal(entry.systemMessage.timestamp, Date.parse(entry.timestamp));
    assert.ok(
      entry.systemMessage.sections || entry.systemMessage.toolsAdded || entry.systemMessage.content,
      'the system message holds prompt sections, tools or text',
    );
  });

  it('navigate --label without a summary to a user message labels that message, not its parent', async () => {
    const user = (await lines(file)).filter((e) => e.type === 'message' && e.message.role === 'user').at(-1);
    await arborJson(['navigate', file, '--to', user.id, '--label', 'retry here']);
    const label = (await lines(file)).at(-1);
    assert.deepEqual([label.type, label.targetId, label.label], ['label', user.id, 'retry here']);
  });

  it('--summarize over a branch with entries but no message writes a branch summary with empty file lists, labelled', async () => {
    const assistant = (await lines(file)).filter((e) => e.type === 'message' && e.message.role === 'assistant').at(-2);
    await arborJson(['navigate', file, '--to', assistant.id]); // leaves a leaf-move entry below the target
    await arborJson(['navigate', file, '--to', assistant.id, '--summarize', '--label', 'empty']);
    const [summary, label] = (await lines(file)).slice(-2);
    assert.equal(summary.type, 'branch_summary');
    assert.equal(summary.parentId, assistant.id);
    assert.deepEqual(summary.details, { readFiles: [], modifiedFiles: [] });
    assert.ok(summary.summary.length > 0);
    assert.deepEqual([label.type, label.targetId, label.label], ['label', summary.id, 'empty']);
  });
});
