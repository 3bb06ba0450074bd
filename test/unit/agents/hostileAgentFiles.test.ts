// Issue 38 item 4: a Claude Code or Codex file cannot disable a command: deep records are bounded like Pi
// entries, and one bad file under a sessions folder is a warning naming it, never an error for the listing.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { run } from '../../support/cliInProcess';
import { withAgentHomes } from '../../support/agentHomes';
import { repoRoot } from '../../support/fixtures';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'agents');

describe('foreign files cannot disable a command (issue 38 item 4)', () => {
  const homeDir = withAgentHomes('arbor-hostile-agents-');
  let home: string;
  const cwd = '/home/dev/proj';
  let codexDay: string;
  let claudeDir: string;

  before(async () => {
    home = homeDir();
    claudeDir = path.join(home, 'claude', 'projects', '-home-dev-proj');
    codexDay = path.join(home, 'codex', 'sessions', '2026', '11', '30');
    await fsp.mkdir(claudeDir, { recursive: true });
    await fsp.mkdir(codexDay, { recursive: true });
    const claudeFile = path.join(claudeDir, '5f0c6a1e-0000-4000-8000-000000000001.jsonl');
    await fsp.copyFile(path.join(fixtures, 'claude-code-session.jsonl'), claudeFile);
    await fsp.copyFile(path.join(fixtures, 'codex-rollout.jsonl'), path.join(codexDay, 'rollout-2026-11-30T11-00-00-good.jsonl'));
  });

  it('a record nested 100,000 deep is skipped with its line; tree, context and plan-compaction still answer', async () => {
    const depth = 100_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    /** The record as a line with its "DEEP" value replaced by the nested arrays. */
    const withDeep = (record: object) => JSON.stringify(record).replace('"DEEP"', deep);
    const base = await fsp.readFile(path.join(fixtures, 'claude-code-session.jsonl'), 'utf8');
    const claudeFile = path.join(home, 'deep-claude.jsonl');
    await fsp.writeFile(
      claudeFile,
      `${base}${withDeep({ type: 'user', uuid: 'deep-1', parentUuid: 'a-0012', message: { role: 'user', content: 'DEEP' } })}\n`,
    );
    const codexBase = await fsp.readFile(path.join(fixtures, 'codex-rollout.jsonl'), 'utf8');
    const codexFile = path.join(home, 'deep-codex.jsonl');
    await fsp.writeFile(
      codexFile,
      `${codexBase}${withDeep({ type: 'response_item', payload: { type: 'function_call', call_id: 'd', arguments: 'DEEP' } })}\n`,
    );
    for (const file of [claudeFile, codexFile])
      for (const args of [
        ['tree', file],
        ['context', file],
        ['plan-compaction', file],
        ['search', file, 'hello'],
      ]) {
        const r = await run(args);
        assert.equal(r.code, 0, `${args[0]} ${path.basename(file)}: ${r.err}`);
        if (args[0] !== 'search') assert.match(r.err, /nested more than 256 levels deep; line skipped/, args[0]);
      }
  });

  it('a FIFO or a folder named like a session under the sessions folders is a warning naming it; listing and search go on', async () => {
    const fifo = path.join(codexDay, 'rollout-2026-11-30T12-00-00-fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const folder = path.join(codexDay, 'rollout-2026-11-30T13-00-00-folder.jsonl');
    await fsp.mkdir(folder);
    const claudeFifo = path.join(claudeDir, 'fifo-session.jsonl');
    execFileSync('mkfifo', [claudeFifo]);
    for (const args of [
      ['sessions', '--cwd', cwd],
      ['search', '--cwd', cwd, 'hello'],
      ['search', '--all', 'hello'],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /warning: .*rollout-2026-11-30T12-00-00-fifo\.jsonl: .*skipped/, args.join(' '));
      assert.match(r.err, /warning: .*rollout-2026-11-30T13-00-00-folder\.jsonl: .*skipped/, args.join(' '));
      assert.match(r.out, args[0] === 'sessions' ? /\[Codex\]/ : /match/);
    }
  });
});
