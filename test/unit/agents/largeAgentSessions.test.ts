// Issue 23: a 100 MB Claude Code transcript and a 100 MB Codex rollout read whole (speed: bench/agentsRead.ts).
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { buildContext } from '../../../src/engine/context/buildContext';
import { generateClaudeCodeSession, generateCodexSession } from '../../../bench/generateAgentSession';

const MB = 1024 * 1024;

describe('100 MB sessions of other agents (issue 23)', function () {
  this.timeout(600_000);
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-agents-large-'));
  });
  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('a 100 MB Claude Code transcript: every turn, every compaction, the context after the last one', async () => {
    const file = path.join(dir, 'claude.jsonl');
    const g = await generateClaudeCodeSession({ file, targetBytes: 100 * MB });
    const index = await loadSession(file);
    assert.equal(index.agent, 'claude-code');
    assert.deepEqual(index.diagnostics, []);
    // Per turn: a request, one assistant entry from three streamed records, a tool result, an answer; per compaction: one entry.
    assert.equal(index.entryCount, g.turns * 4 + g.compactions);
    const ctx = buildContext(index);
    assert.equal(ctx.messages[0].message.role, 'compactionSummary');
    assert.ok(ctx.messages.length < 80 * 4 + 1);
  });

  it('a 100 MB Codex rollout: a linear path with its compactions', async () => {
    const file = path.join(dir, 'codex.jsonl');
    const g = await generateCodexSession({ file, targetBytes: 100 * MB });
    const index = await loadSession(file);
    assert.equal(index.agent, 'codex');
    assert.deepEqual(index.diagnostics, []);
    assert.equal(index.branchPoints().size, 0);
    const ctx = buildContext(index);
    // Codex sends the history it rebuilt, then the summary.
    assert.ok(ctx.messages.some((m) => m.message.role === 'compactionSummary'));
    assert.notEqual(ctx.messages[0].message.role, 'compactionSummary');
    assert.ok(g.compactions > 0);
  });
});
