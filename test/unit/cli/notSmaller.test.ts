/**
 * Issue 32 item 6: a compaction that leaves the context no smaller than now is
 * never written silently. `arbor compact` writes nothing and says why, with
 * the figures and the way forward; `--allow-larger` writes it; the engine's
 * proposal carries the one "after" figure the review panel shows.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { proposeCompaction } from '../../../src/engine/operations/compact';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';

const cli = path.join(repoRoot, 'dist', 'cli.js');
/** A short session: a summary of it is longer than what it replaces. */
const SHORT = fixturePath('files', 'bash-effects.jsonl');

function arbor(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-no-pi-dir') } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function copy(src: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-not-smaller-'));
  const file = path.join(dir, 'session.jsonl');
  await fsp.copyFile(src, file);
  return file;
}

describe('a compaction that does not make the context smaller (issue 32 item 6)', () => {
  it('the proposal says so with both figures', async () => {
    const p = await proposeCompaction({
      file: SHORT,
      summarizer: createOfflineSummarizer(),
      piSettings: DEFAULT_PI_SETTINGS,
      compaction: { keepRecentTokens: 1 },
    });
    assert.equal(p.kind, 'proposal');
    if (p.kind !== 'proposal') return;
    assert.ok(p.summaryTokens >= p.replacedTokens, `a summary of ${p.summaryTokens} tokens for ${p.replacedTokens}`);
    assert.ok(p.replacedTokens > 0);
    assert.equal(p.notSmaller, true);
  });

  it('arbor compact writes nothing and names the figures and the way forward', async () => {
    const file = await copy(SHORT);
    const before = await fsp.readFile(file);
    const r = await arbor(['compact', file, '--keep-recent-tokens', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^nothing written: the summary \(\d+ tokens\) is not smaller than the part of the session it replaces \(\d+ tokens\)/,
    );
    assert.match(r.stdout, /--keep-recent-tokens, now 1\).*--allow-larger/);
    assert.deepEqual(await fsp.readFile(file), before, 'the file is unchanged');
    const j = await arbor(['compact', file, '--keep-recent-tokens', '1', '--json']);
    const out = JSON.parse(j.stdout);
    assert.equal(out.notSmaller, true);
    assert.ok(out.summaryTokens >= out.replacedTokens && typeof out.tokensAfter === 'number', j.stdout);
    assert.deepEqual(await fsp.readFile(file), before);
  });

  it('--allow-larger writes it', async () => {
    const file = await copy(SHORT);
    const r = await arbor(['compact', file, '--keep-recent-tokens', '1', '--allow-larger', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).entry.type, 'compaction');
    const last = JSON.parse((await fsp.readFile(file, 'utf8')).trim().split('\n').at(-1)!);
    assert.equal(last.type, 'compaction');
  });

  it('a compaction that does make it smaller is written as before', async () => {
    const file = await copy(fixturePath('pi-oracle', 'fixtures', '01-plain.jsonl'));
    const r = await arbor(['compact', file, '--keep-recent-tokens', '1000', '--json']);
    assert.equal(JSON.parse(r.stdout).entry.type, 'compaction', r.stdout);
  });
});
