// Issue 23: the CLI over Claude Code and Codex sessions: the same read commands, every write refused, nothing written.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { repoRoot } from '../../support/fixtures';
import { withAgentHomes } from '../../support/agentHomes';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'agents');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function snapshot(dir: string): Promise<string> {
  const names = (await fsp.readdir(dir)).sort();
  const parts: string[] = [];
  for (const n of names) {
    const st = await fsp.stat(path.join(dir, n));
    const hash = st.isFile()
      ? createHash('sha256')
          .update(await fsp.readFile(path.join(dir, n)))
          .digest('hex')
      : 'dir';
    parts.push(`${n} ${st.size} ${st.mtimeMs} ${hash}`);
  }
  return parts.join('\n');
}

describe('arbor over Claude Code and Codex sessions (issue 23)', () => {
  const homeDir = withAgentHomes('arbor-agent-cli-');
  let home: string;
  let claudeFile: string;
  let codexFile: string;
  let claudeDir: string;
  let codexDir: string;
  const cwd = '/home/dev/proj';

  before(async () => {
    home = homeDir();
    claudeDir = path.join(home, 'claude', 'projects', '-home-dev-proj');
    codexDir = path.join(home, 'codex', 'sessions', '2026', '11', '30');
    await fsp.mkdir(claudeDir, { recursive: true });
    await fsp.mkdir(codexDir, { recursive: true });
    claudeFile = path.join(claudeDir, '5f0c6a1e-0000-4000-8000-000000000001.jsonl');
    codexFile = path.join(codexDir, 'rollout-2026-11-30T11-00-00-0199a0b0-0000-7000-8000-00000000c0de.jsonl');
    await fsp.copyFile(path.join(fixtures, 'claude-code-session.jsonl'), claudeFile);
    await fsp.copyFile(path.join(fixtures, 'codex-rollout.jsonl'), codexFile);
    // A rollout of another folder is not listed.
    const other = (await fsp.readFile(codexFile, 'utf8')).replace(/\/home\/dev\/proj/g, '/elsewhere');
    await fsp.writeFile(path.join(codexDir, 'rollout-2026-11-30T12-00-00-other.jsonl'), other);
  });

  it('`arbor sessions --cwd DIR --json` lists them with an agent field', async () => {
    const r = await run(['sessions', '--cwd', cwd, '--json']);
    assert.equal(r.code, 0, r.err);
    const listed = JSON.parse(r.out) as { sessions: { file: string; agent: string; title: string | null; id: string; cwd: string }[] };
    const byAgent = Object.fromEntries(listed.sessions.map((s) => [s.agent, s]));
    assert.deepEqual(Object.keys(byAgent).sort(), ['claude-code', 'codex']);
    assert.equal(byAgent['claude-code'].file, claudeFile);
    assert.equal(byAgent['claude-code'].title, 'Fix the greeting in hello.txt');
    assert.equal(byAgent['claude-code'].id, '5f0c6a1e-0000-4000-8000-000000000001');
    assert.equal(byAgent.codex.file, codexFile);
    assert.equal(byAgent.codex.cwd, cwd);
    assert.equal(byAgent.codex.title, 'List the files and fix hello.txt');
    const text = await run(['sessions', '--cwd', cwd]);
    assert.match(text.out, /\[Claude Code\]/);
    assert.match(text.out, /\[Codex\]/);
  });

  it('tree, context, search, files, export and summary read them', async () => {
    for (const file of [claudeFile, codexFile]) {
      for (const args of [
        ['tree', file],
        ['context', file],
        ['search', file, 'hello'],
        ['files', file],
        ['export', file],
        ['summary', file],
      ]) {
        const r = await run(args);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
        assert.ok(r.out.length > 0, args.join(' '));
      }
    }
    const s = await run(['search', '--cwd', cwd, 'bye.txt', '--json']);
    const hits = JSON.parse(s.out) as { hits: { file: string }[] };
    assert.deepEqual([...new Set(hits.hits.map((h) => h.file))].sort(), [claudeFile, codexFile].sort());
  });

  it('compact, navigate, label, restore and upgrade exit 2 with "read-only: <agent> session"; the files are never written', async () => {
    const before = [await snapshot(claudeDir), await snapshot(codexDir)];
    const cases: [string, string, string][] = [
      [claudeFile, 'Claude Code', 'u-0005'],
      [codexFile, 'Codex', 'L22'],
    ];
    for (const [file, name, id] of cases) {
      for (const args of [
        ['compact', file],
        ['navigate', file, '--to', id],
        ['label', file, '--entry', id, '--label', 'x'],
        ['restore', file, '--to', id],
        ['restore', file, '--undo'],
        ['upgrade', file],
      ]) {
        const r = await run(args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
        assert.match(r.err, new RegExp(`^arbor: read-only: ${name} session \\(`, 'm'), args.join(' '));
      }
    }
    assert.deepEqual([await snapshot(claudeDir), await snapshot(codexDir)], before, 'no byte, file or lock written');
  });
});
