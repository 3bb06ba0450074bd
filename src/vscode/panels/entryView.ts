import * as path from 'node:path';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import { recordedUsage } from '../../engine/session/entryKinds';
import { describeEntry, entryPlainText } from '../../engine/export/entryParts';
import type { EstimatorName } from '../../engine/tokens/estimators';
import type { EntryView, PartView } from '../../webview/protocol';
import { usageView } from './usageView';
import { entryTokens } from '../../engine/context/entryTokens';
import { shownLeaf } from '../../engine/tree/rowFilter';

/** Characters of one part sent to the panel; the rest is announced ("N more characters"). */
export const MAX_PART_CHARS = 100_000;
/** Characters of all parts together; later parts are left out and counted. */
export const MAX_ENTRY_CHARS = 400_000;

function cut(text: string, budget: number): { text: string; more?: number } {
  const limit = Math.min(MAX_PART_CHARS, Math.max(0, budget));
  return text.length > limit ? { text: text.slice(0, limit), more: text.length - limit } : { text };
}

/**
 * Whether entry `i` is where the conversation stands, as the tree marks it
 * ("● current" under Default): the leaf, or the entry a trailing label or
 * jump's leaf move hangs from.
 */
export function isCurrentEntry(index: SessionIndex, i: number): boolean {
  return i >= 0 && shownLeaf({ index, leafIndex: index.leafIndex }, 'default').index === i;
}

/** What the entry panel shows for one entry: the whole message, each part capped so a huge entry cannot freeze the panel. */
export function buildEntryView(
  index: SessionIndex,
  entryId: string,
  options: { sessionTitle?: string; estimator: EstimatorName },
): EntryView {
  const i = index.indexOf(entryId);
  if (i < 0) throw new Error(`entry ${entryId} is not in ${index.file}`);
  const rec = index.record(i);
  const entry = index.entry(i);
  const d = describeEntry(entry);
  let budget = MAX_ENTRY_CHARS;
  const parts: PartView[] = [];
  let moreParts = 0;
  for (const p of d.parts) {
    if (budget <= 0) {
      moreParts++;
      continue;
    }
    let v: PartView;
    switch (p.kind) {
      case 'toolCall': {
        // The panel shows the laid-out fields and the edit's diff when there are fields; else the JSON.
        const c: { text: string; more?: number } = p.fields ? { text: '' } : cut(p.args, budget);
        let room = budget - c.text.length;
        let more = c.more ?? 0;
        const capped = (text: string) => {
          const t = cut(text, Math.max(0, room));
          room -= t.text.length;
          more += t.more ?? 0;
          return t.text;
        };
        const fields = p.fields?.map((f) => ({ ...f, value: capped(f.value) }));
        const edits = p.edits?.map((e) => ({ oldText: capped(e.oldText), newText: capped(e.newText) }));
        v = { ...p, args: c.text, ...(fields ? { fields } : {}), ...(edits ? { edits } : {}), more: more || undefined };
        budget = room;
        break;
      }
      case 'bash': {
        const cmd = cut(p.command, budget);
        const out = cut(p.output, budget - cmd.text.length);
        v = { ...p, command: cmd.text, output: out.text, more: (cmd.more ?? 0) + (out.more ?? 0) || undefined };
        budget -= cmd.text.length + out.text.length;
        break;
      }
      case 'image':
        v = p;
        break;
      default: {
        const c = cut(p.text, budget);
        v = { ...p, text: c.text, more: c.more };
        budget -= c.text.length;
      }
    }
    parts.push(v);
  }
  const message = entry.type === 'message' ? entry.message : undefined;
  const usage = message?.role === 'assistant' ? message.usage : recordedUsage(entry);
  let tokens: number | undefined;
  try {
    tokens = entryTokens(index, i, options.estimator);
  } catch {
    tokens = undefined;
  }
  return {
    kind: 'entry',
    file: index.file,
    sessionTitle: options.sessionTitle ?? path.basename(index.file),
    entryId: rec.id,
    parentId: rec.parentId,
    line: rec.line,
    type: rec.type,
    title: d.title,
    role: d.role,
    timestamp: typeof entry.timestamp === 'string' ? entry.timestamp : '',
    model: d.model,
    usage: usageView(usage),
    tokens,
    estimator: options.estimator,
    label: index.labelOf(rec.id),
    parts,
    moreParts,
    isLeaf: isCurrentEntry(index, i),
  };
}

/** The whole text of an entry, uncut (Copy Text). */
export function entryCopyText(index: SessionIndex, entryId: string): string {
  const i = index.indexOf(entryId);
  if (i < 0) throw new Error(`entry ${entryId} is not in ${index.file}`);
  return entryPlainText(describeEntry(index.entry(i)));
}
