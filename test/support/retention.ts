import * as assert from 'node:assert/strict';
import type { AgentMessage, UserContentBlock } from '../../src/engine/session/types';

/**
 * The retention check of issue 9, independent of the summarizers: from the
 * messages a compaction summarized, what its summary must keep (every
 * modified file, every error no later step resolved, every explicit user
 * constraint, the last user request) and what it must not (resolved errors,
 * incidental names from bulky tool output).
 */

export interface RetentionExpectations {
  modifiedFiles: string[];
  unresolvedErrors: string[];
  resolvedErrors: string[];
  constraints: string[];
  lastRequest: string | null;
  incidentalNames: string[];
}

const CONSTRAINT = /\b(?:must|never|always|prefer|don't|do not|avoid)\b/i;
const MODIFYING = new Set(['write', 'edit']);

function text(content: string | UserContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
}

function squash(t: string): string {
  return t.split(/\s+/).filter(Boolean).join(' ');
}

function firstLine(t: string): string {
  return t.split('\n').map((l) => l.trim()).find(Boolean) ?? '';
}

/** `earlier`: texts the summarizer also read (the previous summary), which may legitimately repeat names. */
export function retentionExpectations(messages: readonly AgentMessage[], earlier: readonly string[] = []): RetentionExpectations {
  const calls = new Map<string, { name: string; target: string }>();
  const failures: { key: string; error: string; resolved: boolean }[] = [];
  const modified = new Set<string>();
  const constraints: string[] = [];
  let lastRequest: string | null = null;
  const spoken: string[] = [...earlier];
  const bulky: string[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      const t = text(m.content);
      if (!t.trim()) continue;
      lastRequest = t;
      spoken.push(t);
      for (const s of t.split(/(?<=[.!?])\s+|\n+/)) if (CONSTRAINT.test(s) && !s.trim().endsWith('?')) constraints.push(squash(s));
    } else if (m.role === 'assistant') {
      for (const b of m.content ?? []) {
        if (b.type === 'text') spoken.push(b.text);
        if (b.type === 'toolCall') {
          const args = b.arguments ?? {};
          const target = String(args.path ?? args.command ?? '');
          calls.set(b.id, { name: b.name, target });
          spoken.push(JSON.stringify(args));
          if (MODIFYING.has(b.name) && typeof args.path === 'string') modified.add(args.path);
        }
      }
      if (m.stopReason === 'error') failures.push({ key: 'model', error: firstLine(m.errorMessage ?? ''), resolved: false });
      else if (m.stopReason !== 'aborted') for (const f of failures) if (f.key === 'model') f.resolved = true;
    } else if (m.role === 'toolResult') {
      const call = calls.get(m.toolCallId);
      if (!call) continue;
      const key = `${MODIFYING.has(call.name) ? 'modify' : call.name}:${call.target}`;
      const t = text(m.content);
      if (m.isError) failures.push({ key, error: firstLine(t), resolved: false });
      else {
        for (const f of failures) if (f.key === key) f.resolved = true;
        if (t.split('\n').length > 10) bulky.push(t);
      }
    } else if (m.role === 'bashExecution' && !m.excludeFromContext) {
      spoken.push(m.command);
      const key = `bash:${m.command.trim()}`;
      if (!m.cancelled && typeof m.exitCode === 'number' && m.exitCode !== 0) {
        const lines = m.output.trim().split('\n').filter((l) => l.trim());
        failures.push({ key, error: lines.length ? lines[lines.length - 1].trim() : '', resolved: false });
      } else if (!m.cancelled) for (const f of failures) if (f.key === key) f.resolved = true;
    }
  }
  const said = spoken.join('\n').toLowerCase();
  const incidental = new Set<string>();
  for (const t of bulky) for (const w of t.split(/[^A-Za-z]+/)) if (w.length >= 7 && !said.includes(w.toLowerCase())) incidental.add(w);
  const errors = (resolved: boolean) => [...new Set(failures.filter((f) => f.resolved === resolved && f.error).map((f) => f.error))];
  const unresolved = errors(false);
  return {
    modifiedFiles: [...modified].sort(),
    unresolvedErrors: unresolved,
    // An error text that also failed unresolved elsewhere is not a "resolved" one.
    resolvedErrors: errors(true).filter((e) => !unresolved.includes(e) && !said.includes(e.toLowerCase().slice(0, 40))),
    constraints: [...new Set(constraints)],
    lastRequest,
    incidentalNames: [...incidental].slice(0, 50),
  };
}

/** A prefix long enough to identify a sentence, short enough to survive the summary's clipping of long items. */
function probe(t: string, n = 60): string {
  return squash(t).slice(0, n);
}

/** Asserts what the summary must keep and must not, with the summary in the message. */
export function assertRetained(summary: string, x: RetentionExpectations, where: string, options: { names?: boolean; errors?: boolean } = {}): void {
  const flat = squash(summary);
  const show = `\n--- ${where} ---\n${summary}`;
  for (const f of x.modifiedFiles) assert.ok(summary.includes(f), `modified file ${f} kept${show}`);
  for (const c of x.constraints) assert.ok(flat.includes(probe(c)), `constraint "${c}" kept${show}`);
  if (x.lastRequest) assert.ok(flat.includes(probe(x.lastRequest, 50)), `last request "${probe(x.lastRequest)}" kept${show}`);
  if (options.errors ?? true) {
    for (const e of x.unresolvedErrors) assert.ok(flat.includes(probe(e, 50)), `unresolved error "${e}" kept${show}`);
    for (const e of x.resolvedErrors) assert.ok(!flat.includes(probe(e, 50)), `resolved error "${e}" left out${show}`);
  }
  if (options.names ?? true) for (const n of x.incidentalNames) assert.ok(!summary.includes(n), `incidental name ${n} left out${show}`);
}
