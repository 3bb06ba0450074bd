/**
 * Fast, allocation-light extraction of the fields the tree index needs from a
 * `message` line written in Pi's canonical key order:
 *   {"type":"message","id":"…","parentId":null|"…","timestamp":"…","message":{"role":"…"
 * Anything else returns undefined and the caller falls back to JSON.parse, so
 * the fast path can only ever be an optimisation, never a different answer.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const PREFIX = Buffer.from('{"type":"message","id":"');
const PARENT_KEY = Buffer.from('","parentId":');
const NULL_TS = Buffer.from('null,"timestamp":"');
const TS_KEY = Buffer.from(',"timestamp":"');
const ROLE_KEY = Buffer.from(',"message":{"role":"');

export interface ScannedMessageLine {
  id: string;
  parentId: string | null;
  role: string;
}

function matchesAt(buf: Buffer, pos: number, end: number, pattern: Buffer): boolean {
  if (pos + pattern.length > end) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (buf[pos + i] !== pattern[i]) return false;
  }
  return true;
}

/**
 * Index of the closing quote of a simple string starting at `pos`, or -1 if
 * it holds an escape or a byte that is not ASCII (the line is parsed then:
 * read byte by byte, "é" or a byte that is not UTF-8 would be a different
 * string from the one JSON.parse gives).
 */
function simpleStringEnd(buf: Buffer, pos: number, end: number, maxLen: number): number {
  const limit = Math.min(end, pos + maxLen);
  for (let i = pos; i < limit; i++) {
    const c = buf[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 0x20 || c >= 0x80) return -1;
  }
  return -1;
}

const ROLES = ['user', 'assistant', 'toolResult', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary', 'system'].map((r) => ({
  role: r,
  bytes: Buffer.from(r),
}));

/** The shared string for a common role (no new string per line). */
function knownRole(buf: Buffer, start: number, end: number): string | undefined {
  const len = end - start;
  for (const r of ROLES) if (r.bytes.length === len && matchesAt(buf, start, end, r.bytes)) return r.role;
  return undefined;
}

/** Whether buf[start, end) holds the characters of `id` (an id read with latin1: a character a byte). */
function bytesAre(buf: Buffer, start: number, end: number, id: string): boolean {
  if (end - start !== id.length) return false;
  for (let i = 0; i < id.length; i++) if (buf[start + i] !== id.charCodeAt(i)) return false;
  return true;
}

/** `previousId`: the id of the entry before (most entries continue it): a parentId equal to it is that string, not a new one. */
export function scanMessageLine(buf: Buffer, start: number, end: number, previousId?: string): ScannedMessageLine | undefined {
  if (!matchesAt(buf, start, end, PREFIX)) return undefined;
  let pos = start + PREFIX.length;
  const idEnd = simpleStringEnd(buf, pos, end, 64);
  if (idEnd < 0) return undefined;
  const id = buf.toString('latin1', pos, idEnd);
  pos = idEnd;
  if (!matchesAt(buf, pos, end, PARENT_KEY)) return undefined;
  pos += PARENT_KEY.length;
  let parentId: string | null;
  if (matchesAt(buf, pos, end, NULL_TS)) {
    parentId = null;
    pos += NULL_TS.length;
  } else if (buf[pos] === QUOTE) {
    const pEnd = simpleStringEnd(buf, pos + 1, end, 64);
    if (pEnd < 0) return undefined;
    parentId = previousId !== undefined && bytesAre(buf, pos + 1, pEnd, previousId) ? previousId : buf.toString('latin1', pos + 1, pEnd);
    pos = pEnd + 1;
    if (!matchesAt(buf, pos, end, TS_KEY)) return undefined;
    pos += TS_KEY.length;
  } else {
    return undefined;
  }
  const tsEnd = simpleStringEnd(buf, pos, end, 64);
  if (tsEnd < 0) return undefined;
  pos = tsEnd + 1;
  if (!matchesAt(buf, pos, end, ROLE_KEY)) return undefined;
  pos += ROLE_KEY.length;
  const roleEnd = simpleStringEnd(buf, pos, end, 32);
  if (roleEnd < 0) return undefined;
  const role = knownRole(buf, pos, roleEnd) ?? buf.toString('latin1', pos, roleEnd);
  // A line cut off mid-way (a writer that died) cannot end in '}'.
  if (buf[end - 1] !== 0x7d) return undefined;
  return { id, parentId, role };
}
