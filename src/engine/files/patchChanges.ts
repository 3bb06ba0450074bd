import { isRecord } from '../session/jsonObject';
import type { TextReplacement } from './types';

/** One file a patch changed, as the agent recorded it (Codex's `item_completed` FileChange). */
export type PatchFileChange =
  | { path: string; kind: 'add'; content: string }
  | { path: string; kind: 'delete' }
  | { path: string; kind: 'update'; edits: TextReplacement[]; movePath?: string };

/**
 * The files of a patch result: `{path: {type: 'add', content} | {type: 'delete'} | {type: 'update',
 * unified_diff, move_path?}}`. An update's hunks become exact replacements (context and removed lines by
 * context and added lines), so the edit replays only on the content it was made on. Entries of another
 * shape are left out (the call then stays an opaque command for them).
 */
export function patchFileChanges(changes: unknown): PatchFileChange[] {
  if (!isRecord(changes)) return [];
  const out: PatchFileChange[] = [];
  for (const [path, c] of Object.entries(changes)) {
    if (!isRecord(c) || !path) continue;
    if (c.type === 'add' && typeof c.content === 'string') out.push({ path, kind: 'add', content: c.content });
    else if (c.type === 'delete') out.push({ path, kind: 'delete' });
    else if (c.type === 'update' && typeof c.unified_diff === 'string') {
      const edits = diffReplacements(c.unified_diff);
      if (edits.length) out.push({ path, kind: 'update', edits, ...(typeof c.move_path === 'string' ? { movePath: c.move_path } : {}) });
    }
  }
  return out;
}

/** A unified diff's hunks as replacements (one per hunk; lines keep their line breaks). */
export function diffReplacements(diff: string): TextReplacement[] {
  const out: TextReplacement[] = [];
  let oldLines: string[] | undefined;
  let newLines: string[] = [];
  const flush = () => {
    if (oldLines && (oldLines.length || newLines.length)) out.push({ oldText: oldLines.join(''), newText: newLines.join('') });
    oldLines = undefined;
    newLines = [];
  };
  let pos = 0;
  while (pos < diff.length) {
    const nl = diff.indexOf('\n', pos);
    const end = nl < 0 ? diff.length : nl + 1;
    const line = diff.slice(pos, end);
    pos = end;
    if (line.startsWith('@@')) {
      flush();
      oldLines = [];
      continue;
    }
    if (!oldLines) continue;
    const body = line.slice(1);
    if (line.startsWith(' ')) {
      oldLines.push(body);
      newLines.push(body);
    } else if (line.startsWith('-')) oldLines.push(body);
    else if (line.startsWith('+')) newLines.push(body);
    else if (line.startsWith('\\')) {
      // "\ No newline at end of file": the line before it has no break.
      const strip = (a: string[]) => a.length && (a[a.length - 1] = a[a.length - 1].replace(/\n$/, ''));
      strip(oldLines);
      strip(newLines);
    }
  }
  flush();
  return out;
}
