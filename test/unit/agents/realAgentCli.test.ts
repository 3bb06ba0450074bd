// Issue 35: the CLI over the real Claude Code and Codex fixtures: every read command reads them without a
// warning, `search` counts the sessions it matched, every write is refused (in JSON too) with the files untouched.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { run } from '../../support/cliInProcess';
import { loadSession } from '../../../src/engine/session/loadSession';
import { withAgentHomes } from '../../support/agentHomes';
import { repoRoot } from '../../support/fixtures';

const real = path.join(repoRoot, 'test', 'fixtures', 'agents', 'real');
const cwd = '/tmp/arbor-fixture/proj';

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) out.push(...(await files(p)));
    else out.push(p);
  }
  return out.sort();
}

async function snapshot(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const f of await files(dir)) {
    const st = await fsp.stat(f);
    parts.push(
      `${f} ${st.size} ${st.mtimeMs} ${createHash('sha256')
        .update(await fsp.readFile(f))
        .digest('hex')}`,
    );
  }
  return parts.join('\n');
}

describe('arbor over the real Claude Code and Codex fixtures (issue 35)', () => {
  const homeDir = withAgentHomes('arbor-real-agents-');
  let home: string;
  let sessions: string[];

  before(async () => {
    home = homeDir();
    await fsp.cp(path.join(real, 'claude-code'), path.join(home, 'claude', 'projects'), { recursive: true });
    await fsp.cp(path.join(real, 'codex'), path.join(home, 'codex', 'sessions'), { recursive: true });
    sessions = (await files(home)).filter((f) => f.endsWith('.jsonl') && !f.includes(`${path.sep}subagents${path.sep}`));
  });

  it('sessions lists each session with its own title', async () => {
    const r = await run(['sessions', '--cwd', cwd, '--json']);
    assert.equal(r.code, 0, r.err);
    const listed = JSON.parse(r.out) as { sessions: { agent: string; title: string | null }[] };
    const titles = listed.sessions.map((s) => `${s.agent} ${s.title}`).sort();
    assert.ok(titles.includes('claude-code fixture tasks'), titles.join('\n'));
    assert.ok(titles.includes('claude-code the fork'), titles.join('\n'));
  });

  it('tree, context, search, files, export and summary read every real session without a warning', async () => {
    for (const file of sessions)
      for (const args of [
        ['tree', file],
        ['context', file],
        ['search', file, 'hello'],
        ['files', file],
        ['export', file],
        ['summary', file],
      ]) {
        const r = await run(args);
        // `summary` of a session without a compaction says so (exit 2); anything else is a failure.
        if (args[0] === 'summary' && r.code === 2 && /has no compaction or branch summary$/m.test(r.err)) continue;
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
        assert.equal(r.err, '', `${args.join(' ')} warns`);
        assert.ok(r.out.length > 0, args.join(' '));
      }
  });

  it('plan-compaction lists the files a Claude Code session read and modified', async () => {
    const main = sessions.find((f) => f.endsWith('00000000-0000-4000-8000-00000000c1a1.jsonl'))!;
    const index = await loadSession(main);
    const thought = index.pathTo(index.leafIndex).find((i) => /Thought about it/.test(JSON.stringify(index.entry(i))));
    assert.ok(thought !== undefined);
    const leaf = index.record(thought).id;
    const r = await run(['plan-compaction', main, '--leaf', leaf, '--keep-recent-tokens', '1', '--json']);
    assert.equal(r.code, 0, r.err);
    const plan = JSON.parse(r.out) as { readFiles: string[]; modifiedFiles: string[] };
    assert.deepEqual(plan.modifiedFiles, ['/tmp/arbor-fixture/proj/notes.txt', '/tmp/arbor-fixture/proj/out.txt']);
  });

  it('tree names the rollout a Codex fork was forked from', async () => {
    const forks = [];
    for (const f of sessions.filter((s) => s.includes(`${path.sep}codex${path.sep}`)))
      if ((await fsp.readFile(f, 'utf8')).split('\n', 1)[0].includes('"forked_from_id"')) forks.push(f);
    assert.equal(forks.length, 1);
    const r = await run(['tree', forks[0]]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^forked from .*rollout-.*\.jsonl$/m);
  });

  it('search counts the sessions it matched, not the ones it scanned', async () => {
    // Only the main Claude Code session made the replace_all edit (its fork starts after the compaction).
    const r = await run(['search', '--cwd', cwd, 'howdy']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`2 matches in 1 session \\(${sessions.length} sessions searched\\)$`, 'm'));
  });

  it('every write is refused, `--json` answers in JSON, and no file changes', async () => {
    const before = await snapshot(home);
    for (const file of sessions) {
      const r = await run(['label', file, '--entry', 'x', '--label', 'y', '--json']);
      assert.equal(r.code, 2);
      const answer = JSON.parse(r.out) as { error: { code: number; message: string } };
      assert.equal(answer.error.code, 2);
      assert.match(answer.error.message, /^read-only: (Claude Code|Codex) session/);
      for (const args of [
        ['compact', file],
        ['navigate', file, '--to', 'x'],
        ['restore', file, '--undo'],
        ['upgrade', file],
      ]) {
        const w = await run(args);
        assert.equal(w.code, 2, `${args.join(' ')}: ${w.err}`);
        assert.match(w.err, /read-only: (Claude Code|Codex) session/);
      }
    }
    assert.equal(await snapshot(home), before, 'no byte, file or lock written');
  });
});
