// Issue 23: Claude Code transcripts and Codex CLI rollouts read into the same index (engine).
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { buildContext } from '../../../src/engine/context/buildContext';
import { historyToEntry, sessionFiles } from '../../../src/engine/files/sessionFiles';
import { titleFactsFromIndex } from '../../../src/engine/tree/sessionTitle';
import { peekSession } from '../../../src/engine/tree/sessionPeek';
import { searchSession, type SearchHit } from '../../../src/engine/search/searchSession';
import { keptUserMessages } from '../../../src/engine/session/agents/codex';
import { readAppended } from '../../../src/engine/session/tail';
import { agentOfHead } from '../../../src/engine/session/agents/agentKind';
import type { AssistantMessage, SessionEntry, ToolResultMessage } from '../../../src/engine/session/types';
import type { SessionIndex } from '../../../src/engine/session/sessionIndex';
import { repoRoot } from '../../support/fixtures';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'agents');
const claudeFile = path.join(fixtures, 'claude-code-session.jsonl');
const codexFile = path.join(fixtures, 'codex-rollout.jsonl');

function message(index: SessionIndex, id: string) {
  const e = index.entryById(id);
  assert.ok(e && e.type === 'message', `${id} is a message entry`);
  return e.message;
}
const parentOf = (index: SessionIndex, id: string) => index.entryById(id)?.parentId;

describe('Claude Code transcripts (issue 23)', () => {
  let index: SessionIndex;
  before(async () => {
    index = await loadSession(claudeFile);
  });

  it('is told by its content and marked with its agent; the header comes from its records', () => {
    assert.equal(index.agent, 'claude-code');
    assert.equal(index.header.id, '5f0c6a1e-0000-4000-8000-000000000001');
    assert.equal(index.header.cwd, '/home/dev/proj');
  });

  it('one API message streamed as several records is one assistant entry with all its blocks', () => {
    const m = message(index, 'a-0001') as AssistantMessage;
    assert.deepEqual(
      m.content.map((b) => b.type),
      ['thinking', 'text', 'toolCall'],
    );
    assert.equal(m.usage?.output, 42, 'the last record’s usage');
    assert.equal(m.usage?.cacheRead, 2000);
    assert.equal(m.stopReason, 'toolUse');
    assert.equal(m.model, 'claude-sonnet-4-5');
    assert.equal(index.entryById('a-0002'), undefined);
    assert.equal(index.entryById('a-0003'), undefined);
    assert.equal(parentOf(index, 'u-0002'), 'a-0001', 'a child of a merged record hangs under the merged entry');
  });

  it('tool_use and tool_result are tool calls and results; an error result is an error', () => {
    const r = message(index, 'u-0004') as ToolResultMessage;
    assert.equal(r.role, 'toolResult');
    assert.equal(r.toolName, 'Bash');
    assert.equal(r.isError, true);
    const ok = message(index, 'u-0007') as ToolResultMessage;
    assert.equal(ok.toolName, 'Task');
    assert.equal(ok.isError, false);
  });

  it('a redo is a fork; a sidechain hangs off the main path; the leaf is the newest main-chain message', () => {
    const a6 = index.indexOf('a-0006');
    assert.deepEqual(
      index.children(a6).map((i) => index.record(i).id),
      ['u-0005', 'u-0006'],
    );
    assert.equal(parentOf(index, 's-0001'), 'a-0008', 'the sidechain root hangs off the Task call');
    assert.equal(index.leafId, 'a-0012');
  });

  it('compact boundaries are compactions: logical parent, isCompactSummary summary, preTokens', () => {
    const c1 = index.entryById('c-0001');
    const c2 = index.entryById('c-0002');
    assert.ok(c1?.type === 'compaction' && c2?.type === 'compaction');
    assert.equal(c1.parentId, 'a-0010');
    assert.match(c1.summary, /Summary: fixed hello.txt/);
    assert.equal(c1.tokensBefore, 15000);
    assert.equal(c2.tokensBefore, 30000);
    assert.equal(index.entryById('cs-0001'), undefined, 'the summary record is the compaction’s summary, not an entry');
    assert.equal(parentOf(index, 'u-0009'), 'c-0001');
  });

  it('the context at the leaf is what Claude Code sends after the latest boundary', () => {
    const ctx = buildContext(index);
    assert.deepEqual(
      ctx.messages.map((m) => m.message.role),
      ['compactionSummary', 'user', 'assistant'],
    );
    assert.deepEqual(
      ctx.messages.map((m) => index.record(m.entryIndex).id),
      ['c-0002', 'u-0011', 'a-0012'],
    );
  });

  it('isMeta records are hidden bookkeeping; summary records title the session', () => {
    assert.equal(index.entryById('m-0001')?.type, 'custom');
    assert.equal(titleFactsFromIndex(index).name, 'Fix the greeting in hello.txt');
  });

  it('malformed and unknown records are reported with their line and skipped', () => {
    const d = index.diagnostics.map((x) => `${x.line}: ${x.message}`);
    assert.equal(d.length, 2, d.join('\n'));
    assert.match(d[0], /^26: invalid JSON/);
    assert.match(d[1], /^27: .*unknown type "mystery-record"/);
  });

  it('Read/Edit/MultiEdit/Write/Bash feed the file states', () => {
    const files = sessionFiles(index);
    const h = historyToEntry(index, index.leafIndex, files);
    const hello = h.files.get('/home/dev/proj/hello.txt');
    const bye = h.files.get('/home/dev/proj/bye.txt');
    assert.deepEqual(
      hello?.changes.map((c) => `${c.kind} ${c.entryId}`),
      ['edit a-0004', 'edit a-0011'],
    );
    assert.equal(bye?.final.state, 'known');
    assert.equal(bye?.final.state === 'known' && bye.final.text, 'goodbye\n');
    // The whole file Read showed (toolUseResult.file), not its numbered lines: the edits replay on it.
    assert.ok(hello && hello.final.state === 'assumed', JSON.stringify(hello?.final));
    assert.equal(hello.final.text, 'Hello world\n');
  });

  it('the session list peek and search read it', async () => {
    const peek = await peekSession(claudeFile);
    assert.equal(peek.agent, 'claude-code');
    assert.equal(peek.name, 'Fix the greeting in hello.txt');
    assert.equal(peek.firstUserMessage, 'Please fix the greeting in hello.txt');
    assert.equal(peek.cwd, '/home/dev/proj');
    const hits: SearchHit[] = [];
    await searchSession(claudeFile, { query: 'capitalised', onHit: (h) => hits.push(h) });
    assert.deepEqual(
      hits.map((h) => [h.entryId, h.field, h.line]),
      [['c-0002', 'summary', 31]],
    );
  });
});

describe('Codex CLI rollouts (issue 23)', () => {
  let index: SessionIndex;
  before(async () => {
    index = await loadSession(codexFile);
  });

  it('is a linear path with session_meta as its header', () => {
    assert.equal(index.agent, 'codex');
    assert.equal(index.header.id, '0199a0b0-0000-7000-8000-00000000c0de');
    assert.equal(index.header.cwd, '/home/dev/proj');
    assert.equal(index.branchPoints().size, 0);
    assert.equal(index.roots().length, 1);
    assert.equal(index.leafId, 'L29');
  });

  it('reasoning and calls of one answer are one assistant message; outputs are joined by call_id', () => {
    const a = message(index, 'L8') as AssistantMessage;
    assert.deepEqual(
      a.content.map((b) => b.type),
      ['thinking', 'toolCall'],
    );
    assert.equal(a.content[0].type === 'thinking' && a.content[0].thinking, '**Listing files** first.');
    const out = message(index, 'L10') as ToolResultMessage;
    assert.equal(out.toolName, 'shell');
    assert.equal(out.toolCallId, 'call_ls');
    assert.equal(out.isError, false);
    assert.equal((message(index, 'L13') as ToolResultMessage).toolName, 'apply_patch');
    assert.equal((message(index, 'L15') as ToolResultMessage).isError, true, 'exit code 2');
  });

  it('token_count is the usage of the answer before it and gives the context window', () => {
    const a = message(index, 'L16') as AssistantMessage;
    assert.deepEqual([a.usage?.input, a.usage?.cacheRead, a.usage?.output], [1000, 5000, 40]);
    assert.equal(index.header.contextWindow, 272000);
  });

  it('turn_context model and effort changes are entries', () => {
    assert.equal(index.entryById('L23')?.type, 'model_change');
    assert.equal(index.entryById('L23.effort')?.type, 'thinking_level_change');
  });

  it('compacted without replacement_history: the initial context and earlier user messages, then the summary (as Codex sends it)', () => {
    const c = index.entryById('L21');
    assert.ok(c?.type === 'compaction');
    assert.equal(c.summary, 'Summary: fixed hello.txt; make has no test target.');
    const ctx = buildContext(index, index.indexOf('L22'));
    assert.deepEqual(
      ctx.messages.map((m) => index.record(m.entryIndex).id),
      ['L21.h0', 'L21.h1', 'L21.h2', 'L21.h3', 'L21', 'L22'],
    );
  });

  it('compacted with replacement_history: the context is that history, then the summary (its copy in the history is the compaction)', () => {
    const ctx = buildContext(index);
    assert.deepEqual(
      ctx.messages.map((m) => index.record(m.entryIndex).id),
      ['L27.h0', 'L27.h1', 'L27', 'L28', 'L29'],
    );
  });

  it('earlier user messages are kept within Codex’s budget, newest first, the crossing one cut', () => {
    assert.deepEqual(keptUserMessages(['a'.repeat(40), 'b'.repeat(8), 'c'.repeat(8)], 5), ['a'.repeat(4), 'b'.repeat(8), 'c'.repeat(8)]);
    assert.deepEqual(keptUserMessages([], 5), []);
  });

  it('malformed and unknown lines are reported and skipped', () => {
    const d = index.diagnostics.map((x) => `${x.line}: ${x.message}`);
    assert.equal(d.length, 2, d.join('\n'));
    assert.match(d[0], /^19: invalid JSON/);
    assert.match(d[1], /^20: Codex record of unknown type "mystery"/);
  });

  it('its title skips the context Codex adds; peek reads it', async () => {
    assert.equal(titleFactsFromIndex(index).firstRequest, 'List the files and fix hello.txt');
    const peek = await peekSession(codexFile);
    assert.equal(peek.agent, 'codex');
    assert.equal(peek.firstUserMessage, 'List the files and fix hello.txt');
    assert.equal(peek.cwd, '/home/dev/proj');
  });
});

describe('format detection and hostile records (issue 23)', () => {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-agents-'));
  });
  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('detects by content, not file name', async () => {
    const a = path.join(dir, 'rollout-2026-11-30T11-00-00-x.jsonl');
    await fsp.copyFile(claudeFile, a);
    assert.equal((await loadSession(a)).agent, 'claude-code');
    const b = path.join(dir, 'plain.jsonl');
    await fsp.copyFile(codexFile, b);
    assert.equal((await loadSession(b)).agent, 'codex');
    assert.equal((await loadSession(path.join(repoRoot, 'samples', 'sample-session.jsonl'))).agent, 'pi');
    assert.equal(agentOfHead(Buffer.from('{"type":"session","id":"x"}\n'), true), 'pi');
    assert.equal(agentOfHead(Buffer.from('{"parentUuid":null,"type":"user","message":"'), false), 'claude-code');
    assert.equal(agentOfHead(Buffer.from('garbage\n{"x":1}\n'), true), undefined);
  });

  it('values of the wrong type or depth never break the reader', async () => {
    const weird: unknown[] = [5, null, 'x', [], {}, { a: { b: [1, { c: null }] } }, 'text', ''.padEnd(10, '\u0000')];
    const claude: string[] = [];
    const codex: string[] = [JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 7, cwd: ['x'] } })];
    let n = 0;
    for (const v of weird) {
      for (const w of weird) {
        n++;
        claude.push(
          JSON.stringify({
            parentUuid: n > 1 ? `u${n - 1}` : null,
            uuid: `u${n}`,
            sessionId: v,
            cwd: w,
            type: n % 3 ? 'user' : 'assistant',
            message: { id: v, role: w, content: v, usage: w },
          }),
          JSON.stringify({
            type: 'user',
            uuid: `t${n}`,
            parentUuid: v,
            message: { content: [{ type: 'tool_result', tool_use_id: v, content: w, is_error: v }, w] },
          }),
          JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: `c${n}`, logicalParentUuid: v, compactMetadata: w }),
          JSON.stringify({ type: 'user', isCompactSummary: true, uuid: `s${n}`, parentUuid: `c${n}`, message: { content: v } }),
          JSON.stringify({
            type: 'assistant',
            uuid: `a${n}`,
            parentUuid: `s${n}`,
            message: { id: 'm', content: [{ type: 'tool_use', id: v, name: w, input: v }, { type: v }] },
          }),
        );
        codex.push(
          JSON.stringify({ timestamp: v, type: 'response_item', payload: { type: 'message', role: 'user', content: v } }),
          JSON.stringify({ timestamp: 'x', type: 'response_item', payload: { type: 'function_call', name: v, arguments: w, call_id: v } }),
          JSON.stringify({ timestamp: 'x', type: 'response_item', payload: { type: 'function_call_output', call_id: w, output: v } }),
          JSON.stringify({ timestamp: 'x', type: 'response_item', payload: { type: 'reasoning', summary: v, content: w } }),
          JSON.stringify({
            timestamp: 'x',
            type: 'event_msg',
            payload: { type: 'token_count', info: { last_token_usage: v, model_context_window: w } },
          }),
          JSON.stringify({
            timestamp: 'x',
            type: 'compacted',
            payload: { message: v, replacement_history: Array.isArray(w) ? w : [v, w] },
          }),
          JSON.stringify({ timestamp: 'x', type: 'turn_context', payload: { model: v, effort: w } }),
        );
      }
    }
    const cf = path.join(dir, 'weird-claude.jsonl');
    const xf = path.join(dir, 'weird-codex.jsonl');
    await fsp.writeFile(cf, claude.join('\n') + '\n');
    await fsp.writeFile(xf, codex.join('\n') + '\n');
    for (const f of [cf, xf]) {
      const index = await loadSession(f);
      const ctx = buildContext(index);
      assert.ok(ctx.messages.length >= 0);
      historyToEntry(index, index.leafIndex, sessionFiles(index));
      titleFactsFromIndex(index);
      await peekSession(f);
      await searchSession(f, { query: 'x', onHit: () => undefined });
      for (let i = 0; i < index.entryCount; i++) {
        const e: SessionEntry = index.entry(i);
        assert.equal(typeof e.id, 'string');
      }
    }
  });

  it('bytes appended to another agent’s session make it read again (never parsed as Pi lines)', async () => {
    const f = path.join(dir, 'growing.jsonl');
    await fsp.copyFile(codexFile, f);
    const index = await loadSession(f);
    assert.deepEqual(await readAppended(index), { added: 0, replaced: false });
    const more = {
      timestamp: 'x',
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'More' }] },
    };
    await fsp.appendFile(f, JSON.stringify(more) + '\n');
    const before = index.diagnostics.length;
    assert.deepEqual(await readAppended(index), { added: 0, replaced: true });
    assert.equal(index.diagnostics.length, before);
    assert.equal((await loadSession(f)).leafId, 'L31');
  });

  it('a cut-off last line is reported and not read; the rest is', async () => {
    const f = path.join(dir, 'cut.jsonl');
    const text = await fsp.readFile(codexFile, 'utf8');
    await fsp.writeFile(f, text + '{"timestamp":"x","type":"response_item","payload":{"type":"mess');
    const index = await loadSession(f);
    assert.equal(index.leafId, 'L29');
    assert.match(index.diagnostics.at(-1)!.message, /incomplete/);
    assert.ok(index.hasIncompleteLine);
  });
});
