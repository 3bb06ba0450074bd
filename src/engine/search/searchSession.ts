import { contentText } from '../tree/entryPreview';
import { isRecord } from '../session/jsonObject';
import { checkEntryObject } from '../session/parseLine';
import { openRegularFile } from '../session/sessionFile';
import { oneLine } from '../tree/oneLine';
import { MAX_PARSED_ENTRY_BYTES } from '../session/entryLimits';
import { sniffAgent } from '../session/agents/loadForeign';
import { loadSession } from '../session/loadSession';
import type { SessionIndex } from '../session/sessionIndex';

/**
 * Text search in a session file (pure engine, no vscode): plain
 * case-insensitive substring matching (no pattern is built from the query),
 * over the text of messages, tool calls and their arguments, tool results,
 * summaries and labels. The file is read in chunks; a line is parsed only
 * when its raw bytes contain the query, so the cost is linear in the file and
 * the first hits come from the first chunk. Hits are handed over as they are
 * found; an AbortSignal stops the scan between lines.
 */
export interface SearchHit {
  file: string;
  /** The entry the text belongs to (a label's hit is reported on the entry it names). */
  entryId: string;
  /** 1-based line of the matching entry in the file. */
  line: number;
  /** Where the text was found: 'message', 'thinking', 'tool call', 'tool result', 'shell', 'summary', 'label', 'session name'. */
  field: string;
  /** One line around the first match. */
  snippet: string;
}

export interface SearchOptions {
  query: string;
  onHit: (hit: SearchHit) => void;
  /** Bytes scanned so far and the file's size, after each chunk. */
  onProgress?: (scanned: number, size: number) => void;
  signal?: AbortSignal;
  /** Stop after this many hits (default 1000). */
  maxHits?: number;
  chunkBytes?: number;
}

export interface SearchResult {
  hits: number;
  scannedBytes: number;
  /** False when stopped at maxHits. */
  complete: boolean;
  /** Lines longer than MAX_PARSED_ENTRY_BYTES: passed over unsearched (their bytes are never held). */
  skippedLines: number[];
}

/** The texts of an entry a search looks at, each with where it comes from. */
export function searchableTexts(e: Record<string, unknown>): { field: string; text: string; entryId?: string }[] {
  const out: { field: string; text: string; entryId?: string }[] = [];
  const push = (field: string, text: unknown) => {
    if (typeof text === 'string' && text) out.push({ field, text });
  };
  switch (e.type) {
    case 'message': {
      const m = isRecord(e.message) ? e.message : {};
      if (m.role === 'assistant' && Array.isArray(m.content)) {
        for (const b of m.content) {
          if (!isRecord(b)) continue;
          if (b.type === 'text') push('message', b.text);
          else if (b.type === 'thinking') push('thinking', b.thinking);
          else if (b.type === 'toolCall') push('tool call', `${String(b.name)} ${argumentText(b.arguments)}`);
        }
      } else if (m.role === 'toolResult') {
        push('tool result', `${String(m.toolName ?? '')} ${contentText(m.content)}`);
      } else if (m.role === 'bashExecution') {
        push('shell', `${String(m.command ?? '')}\n${String(m.output ?? '')}`);
      } else if (m.role === 'branchSummary' || m.role === 'compactionSummary') {
        push('summary', m.summary);
      } else {
        push('message', contentText(m.content));
      }
      break;
    }
    case 'compaction':
    case 'branch_summary':
      push('summary', e.summary);
      break;
    case 'custom_message':
      push('message', contentText(e.content));
      break;
    case 'session_info':
      push('session name', e.name);
      break;
    case 'label':
      if (typeof e.label === 'string' && e.label && typeof e.targetId === 'string')
        out.push({ field: 'label', text: e.label, entryId: e.targetId });
      break;
  }
  return out;
}

/** A tool call's arguments as the text they hold (string values as they are: no JSON escapes in a snippet). */
function argumentText(args: unknown): string {
  if (!args || typeof args !== 'object') return safeJson(args);
  return Object.values(args)
    .map((v) => (typeof v === 'string' ? v : safeJson(v)))
    .join(' ');
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/** The query as it appears inside a JSON string (quotes, backslashes and control characters escaped), lower-cased. */
function jsonNeedle(query: string): string {
  return JSON.stringify(query).slice(1, -1).toLowerCase();
}

const FIRST_CHUNK_BYTES = 128 * 1024;
const SNIPPET_BEFORE = 40;
const SNIPPET_LENGTH = 160;

function snippetAround(text: string, at: number): string {
  const from = Math.max(0, at - SNIPPET_BEFORE);
  const piece = text.slice(from, from + SNIPPET_LENGTH * 2);
  return `${from > 0 ? '…' : ''}${oneLine(piece, SNIPPET_LENGTH)}`;
}

export async function searchSession(file: string, options: SearchOptions): Promise<SearchResult> {
  const query = options.query.trim().toLowerCase();
  const result: SearchResult = { hits: 0, scannedBytes: 0, complete: true, skippedLines: [] };
  if (!query) return result;
  // Another agent's records are not entries: its session is read through its converter and its entries searched.
  const agent = await sniffAgent(file);
  if (agent === 'claude-code' || agent === 'codex')
    return searchEntries(await loadSession(file, { signal: options.signal }), query, options, result);
  const needle = jsonNeedle(query);
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  const fh = await openRegularFile(file);
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(chunkBytes);
    // The first reads are small (first hits come sooner), then double up to chunkBytes.
    let readBytes = Math.min(chunkBytes, FIRST_CHUNK_BYTES);
    let carry: Buffer = Buffer.alloc(0);
    let position = 0;
    let lineNo = 0;
    let skipping = false;
    const scanLine = (line: string): boolean => {
      lineNo++;
      if (lineNo === 1 || !line || !line.toLowerCase().includes(needle)) return true;
      let e: unknown;
      try {
        e = JSON.parse(line);
      } catch {
        return true;
      }
      // The checks every reader makes (a value of the wrong type or depth: the entry is not searched).
      const checked = checkEntryObject(e, 2);
      if (!checked.ok) return true;
      return searchEntry(file, checked.value, lineNo, query, options, result);
    };
    while (position < size) {
      options.signal?.throwIfAborted();
      const { bytesRead } = await fh.read(buf, 0, readBytes, position);
      readBytes = Math.min(chunkBytes, readBytes * 2);
      if (bytesRead === 0) break;
      position += bytesRead;
      let begin = 0;
      if (skipping) {
        // Inside a line too long to search: its bytes are passed over up to its line break.
        const nl = buf.subarray(0, bytesRead).indexOf(10);
        if (nl < 0) continue;
        skipping = false;
        result.skippedLines.push(++lineNo);
        begin = nl + 1;
      }
      // Cut at the last line break so no UTF-8 sequence or line is split between chunks.
      const last = buf.lastIndexOf(10, bytesRead - 1);
      if (last < begin) {
        if (carry.length + bytesRead - begin > MAX_PARSED_ENTRY_BYTES) {
          carry = Buffer.alloc(0);
          skipping = true;
        } else {
          carry = Buffer.concat([carry, buf.subarray(begin, bytesRead)]);
        }
        continue;
      }
      let text = carry.length ? Buffer.concat([carry, buf.subarray(begin, last)]).toString('utf8') : buf.toString('utf8', begin, last);
      // A copy: the buffer is read into again.
      carry = Buffer.from(buf.subarray(last + 1, bytesRead));
      let start = 0;
      for (let nl = text.indexOf('\n', start); ; nl = text.indexOf('\n', start)) {
        const end = nl < 0 ? text.length : nl;
        if (!scanLine(text.charCodeAt(start) === 0xfeff ? text.slice(start + 1, end) : text.slice(start, end))) {
          result.scannedBytes = position;
          return result;
        }
        if (nl < 0) break;
        start = nl + 1;
        if ((lineNo & 1023) === 0) options.signal?.throwIfAborted();
      }
      text = '';
      result.scannedBytes = position;
      options.onProgress?.(position, size);
    }
    if (carry.length && !skipping) scanLine(carry.toString('utf8'));
    result.scannedBytes = position;
    options.onProgress?.(position, size);
    return result;
  } finally {
    await fh.close();
  }
}

/** Looks for the query in one entry's texts (one hit per entry); false when the hit limit is reached. */
function searchEntry(
  file: string,
  entry: Record<string, unknown>,
  line: number,
  query: string,
  options: SearchOptions,
  result: SearchResult,
): boolean {
  for (const t of searchableTexts(entry)) {
    const at = t.text.toLowerCase().indexOf(query);
    if (at < 0) continue;
    options.onHit({ file, entryId: t.entryId ?? (entry.id as string), line, field: t.field, snippet: snippetAround(t.text, at) });
    if (++result.hits >= (options.maxHits ?? 1000)) {
      result.complete = false;
      return false;
    }
    break; // one hit per entry
  }
  return true;
}

/** The search over a loaded index's entries (another agent's session), each reported at its record's line. */
function searchEntries(index: SessionIndex, query: string, options: SearchOptions, result: SearchResult): SearchResult {
  for (let i = 0; i < index.entryCount; i++) {
    if ((i & 1023) === 0) options.signal?.throwIfAborted();
    const entry = index.entry(i) as unknown as Record<string, unknown>;
    if (!searchEntry(index.file, entry, index.record(i).line, query, options, result)) break;
  }
  result.scannedBytes = index.size;
  options.onProgress?.(index.size, index.size);
  return result;
}
