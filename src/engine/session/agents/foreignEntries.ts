import type { Diagnostic } from '../diagnostics';
import { isRecord } from '../jsonObject';
import type { SessionEntry, SessionHeader, TextBlock, ImageBlock, UserContentBlock } from '../types';

/** One entry made from another agent's record, with where its record is in the file (line for errors, offset for order). */
export interface ForeignEntry {
  entry: SessionEntry;
  line: number;
  offset: number;
}

/** What a converter makes of a whole file: a Pi-shaped header and entries in file order. */
export interface ForeignSession {
  header: SessionHeader;
  entries: ForeignEntry[];
  /** The leaf, as a position in `entries` (undefined: the last). */
  leaf?: number;
  /** A Claude Code fork's copy of its origin: the copied records' uuids, and how many entries (the first) came from them. */
  fork?: { copiedUuids: string[]; copiedEntries: number };
  diagnostics: Diagnostic[];
}

/** One parsed line of the file (blank lines are not given). */
export interface SourceLine {
  line: number;
  offset: number;
  value: Record<string, unknown>;
  /** Put before the ids of the entries made from it (a line of another file: a Codex fork's parent). */
  idPrefix?: string;
}

/** A string field, else undefined (every field of a foreign record may have any type). */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function text(t: string): TextBlock {
  return { type: 'text', text: t };
}

/** An image block from an Anthropic `source` ({type:'base64', media_type, data}) or a data: URL (Codex `input_image`). */
export function imageBlock(source: unknown): ImageBlock | undefined {
  if (isRecord(source) && source.type === 'base64' && typeof source.data === 'string')
    return { type: 'image', data: source.data, mimeType: str(source.media_type) ?? 'image/png' };
  if (typeof source === 'string') {
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(source);
    if (m) return { type: 'image', data: m[2], mimeType: m[1] };
  }
  return undefined;
}

/** Text and image blocks of user-side content (a string, or blocks of `text`/`input_text`/`output_text`/`image`/`input_image`). */
export function userBlocks(content: unknown): UserContentBlock[] {
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content)) return [];
  const out: UserContentBlock[] = [];
  for (const b of content) {
    if (!isRecord(b)) continue;
    const t = str(b.text);
    if ((b.type === 'text' || b.type === 'input_text' || b.type === 'output_text') && t !== undefined) out.push(text(t));
    else if (b.type === 'image' || b.type === 'input_image') {
      const img = imageBlock(b.source ?? b.image_url);
      if (img) out.push(img);
      else out.push(text('[image]'));
    }
  }
  return out;
}

/** A timestamp as an ISO string ('' when absent). */
export function isoTime(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Milliseconds of an ISO timestamp, for messages' `timestamp` (undefined when it does not parse). */
export function msTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}
