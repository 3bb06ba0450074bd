import { formatPinnedBlock, PINNED_HEADING } from '../../compaction/pins';
import { outlineOf } from '../summaryOutline';
import type { SectionKey } from '../summaryHeadings';
import { code, squash } from './text';
import type { Fact, FactKind } from './facts';

/**
 * Putting missing facts back into a summary, where that can be done without
 * a model: a constraint or the open request word for word, a pinned entry's
 * block, the names of modified files. The result is an edit the user still
 * reviews and applies. Lines are added at the end of the section they belong
 * to (a "(none)" placeholder there is replaced); a missing section is added
 * at the end of the summary's body, before any turn context and file lists.
 */

export const RESTORABLE_KINDS: ReadonlySet<FactKind> = new Set(['constraint', 'request', 'pin', 'file']);

export function canPutBack(fact: Fact): boolean {
  return RESTORABLE_KINDS.has(fact.kind);
}

const PLACEHOLDER = /^\s*(?:[-*]\s*)?\(?(?:none|nothing[^)]*)\)?\.?\s*$/i;
const FILE_BLOCK = /^\s*<(?:read-files|modified-files)>\s*$/;

interface Addition {
  key: SectionKey;
  heading: string;
  lines: string[];
}

function additionsFor(facts: readonly Fact[]): Addition[] {
  const constraints = facts.filter((f) => f.kind === 'constraint').map((f) => `- ${squash(f.text)}`);
  const requests = facts.filter((f) => f.kind === 'request').map((f) => `- [ ] ${squash(f.text)}`);
  const files = facts.filter((f) => f.kind === 'file').map((f) => code(f.text));
  const out: Addition[] = [];
  if (constraints.length) out.push({ key: 'constraints', heading: '## Constraints & Preferences', lines: constraints });
  if (requests.length) out.push({ key: 'inProgress', heading: '## In Progress', lines: requests });
  if (files.length) out.push({ key: 'criticalContext', heading: '## Critical Context', lines: [`- Modified files: ${files.join(', ')}`] });
  return out;
}

/** The summary with the restorable ones of `facts` put back (others are ignored). */
export function putBack(summary: string, facts: readonly Fact[]): string {
  const todo = facts.filter(canPutBack);
  if (!todo.length) return summary;
  const outline = outlineOf(summary);
  const { lines, headings, bodyEnd, inFence } = outline;
  // Where each section's body ends: the next heading (any level), the body's end, or a file-list block.
  const ends = new Map<SectionKey, { start: number; end: number }>();
  let open: { key: SectionKey | undefined; start: number } | null = null;
  let bodyStop = bodyEnd;
  for (let i = 0; i < bodyEnd; i++) {
    if (!inFence[i] && FILE_BLOCK.test(lines[i])) {
      bodyStop = i;
      break;
    }
    const h = headings[i];
    if (!h) continue;
    if (open?.key && !ends.has(open.key)) ends.set(open.key, { start: open.start, end: i });
    open = { key: h.key, start: i };
  }
  if (open?.key && !ends.has(open.key)) ends.set(open.key, { start: open.start, end: bodyStop });
  const after = new Map<number, string[]>();
  const replace = new Set<number>();
  const add = (at: number, more: string[]) => after.set(at, [...(after.get(at) ?? []), ...more]);
  const tail: string[] = [];
  let lastBody = bodyStop - 1;
  while (lastBody >= 0 && !lines[lastBody].trim()) lastBody--;
  for (const a of additionsFor(todo)) {
    const range = ends.get(a.key);
    if (!range) {
      tail.push('', a.heading, ...a.lines);
      continue;
    }
    let last = range.end - 1;
    while (last > range.start && !lines[last].trim()) last--;
    for (let k = range.start + 1; k <= last; k++) if (PLACEHOLDER.test(lines[k])) replace.add(k);
    add(last, a.lines);
  }
  const pins = todo.filter((f) => f.kind === 'pin' && f.entryId);
  if (pins.length) {
    const block = formatPinnedBlock(
      pins.map((f) => ({ id: f.entryId!, kind: f.pin?.kind ?? 'entry', label: f.pin?.label ?? 'pin', text: f.text })),
    );
    const pinnedAt = lines.findIndex((l, i) => i < bodyStop && l.trim() === PINNED_HEADING);
    if (pinnedAt >= 0) {
      let last = pinnedAt;
      for (let k = pinnedAt + 1; k < bodyStop && !headings[k]; k++) if (lines[k].trim()) last = k;
      add(last, block.split('\n').slice(1));
    } else tail.push('', ...block.split('\n'));
  }
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!replace.has(i)) out.push(lines[i]);
    const more = after.get(i);
    if (more) out.push(...more);
    if (i === lastBody && tail.length) out.push(...tail);
  }
  if (lastBody < 0 && tail.length) out.unshift(...tail.slice(1), '');
  return out.join('\n');
}
