import * as assert from 'node:assert/strict';
import type { AgentMessage } from '../../src/engine/session/types';
import { extract } from '../../src/engine/summarize/offline/extract';
import { textOfContent } from '../../src/engine/session/contentBlocks';
import { checkRetention, type Fact, type FactKind, type SpanFacts } from '../../src/engine/summarize/retention';

/**
 * Test helpers over the engine's retention check (src/engine/summarize/retention,
 * the one home for what a summary must keep). What a summary must NOT keep is
 * a test-only concern: errors a later step fixed, and incidental names from
 * bulky tool output that nobody spoke about (a short output and a Markdown
 * file's title are spoken: a summary may quote them as results).
 */

/** Asserts the summary keeps every fact (of `kinds`, default all), listing the missing ones with the summary. */
export function assertKeeps(
  summary: string,
  facts: readonly Fact[] | SpanFacts,
  where: string,
  options: { cwd?: string; kinds?: readonly FactKind[] } = {},
): void {
  const list = Array.isArray(facts) ? (facts as readonly Fact[]) : (facts as SpanFacts).facts;
  const wanted = options.kinds ? list.filter((f) => options.kinds!.includes(f.kind)) : list;
  const { missing } = checkRetention(summary, wanted, { cwd: options.cwd });
  assert.deepEqual(
    missing.map((f) => `${f.kind}: ${f.text}`),
    [],
    `--- ${where}: facts missing from the summary ---\n${summary}`,
  );
}

export interface MustDrop {
  resolvedErrors: string[];
  incidentalNames: string[];
}

/** `earlier`: texts the summarizer also read (the previous summary), which may legitimately repeat names. */
export function mustDrop(messages: readonly AgentMessage[], earlier: readonly string[] = []): MustDrop {
  const x = extract(messages);
  const spoken: string[] = [...earlier];
  const bulky: string[] = [];
  for (const m of messages) {
    if (m.role === 'user') spoken.push(textOfContent(m.content));
    else if (m.role === 'assistant')
      for (const b of m.content ?? [])
        spoken.push(b.type === 'text' ? b.text : b.type === 'toolCall' ? JSON.stringify(b.arguments ?? {}) : '');
    else if (m.role === 'bashExecution' && !m.excludeFromContext) spoken.push(m.command);
    else if (m.role === 'toolResult' && !m.isError) {
      const t = textOfContent(m.content);
      // A short output can be the result an answer points at (the rows asked for), and a Markdown file's title is
      // what it is about: both may be quoted. Only what bulky output alone holds is incidental.
      if (t.split('\n').length > 10) {
        bulky.push(t);
        const first = t.split('\n', 1)[0];
        if (/^#{1,6} \S/.test(first)) spoken.push(first);
      } else spoken.push(t);
    }
  }
  const said = spoken.join('\n').toLowerCase();
  const incidental = new Set<string>();
  for (const t of bulky) for (const w of t.split(/[^A-Za-z]+/)) if (w.length >= 7 && !said.includes(w.toLowerCase())) incidental.add(w);
  const unresolved = new Set(x.problems.filter((p) => !p.resolved).map((p) => p.error));
  const resolved = [...new Set(x.problems.filter((p) => p.resolved && !unresolved.has(p.error)).map((p) => p.error))];
  return {
    resolvedErrors: resolved.filter((e) => !said.includes(e.toLowerCase().slice(0, 40))),
    incidentalNames: [...incidental].slice(0, 50),
  };
}

/**
 * Asserts the summary leaves out what it must drop. A resolved error may be
 * the stated reason of a workaround under Key Decisions or a split turn's
 * "Decided:" line ("using bash instead: `grep` failed: Tool grep not
 * found"): it must not be anywhere else.
 */
export function assertDrops(summary: string, d: MustDrop, where: string): void {
  const decisions = /^## Key Decisions\n[\s\S]*?(?=^## )/m;
  const flat = summary
    .replace(decisions, '')
    .replace(/^- Decided: .*$/gm, '')
    .split(/\s+/)
    .join(' ');
  for (const e of d.resolvedErrors)
    assert.ok(!flat.includes(e.split(/\s+/).join(' ').slice(0, 50)), `resolved error "${e}" left out\n--- ${where} ---\n${summary}`);
  for (const n of d.incidentalNames) assert.ok(!summary.includes(n), `incidental name ${n} left out\n--- ${where} ---\n${summary}`);
}
