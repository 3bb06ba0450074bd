import { jsonLines } from './jsonLines';
import { formatDiagnostic } from '../engine/session/diagnostics';
import type { SessionIndex } from '../engine/session/sessionIndex';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /**
   * When the output holds written text it could not pass on yet (a pipe
   * whose reader is slower), a promise of when it has; otherwise undefined.
   * A command that writes a lot waits on it between chunks, so what it
   * writes is never queued up in memory.
   */
  ready?: () => Promise<void> | undefined;
}

/** Stdout's queue drained (or the stream ended: nothing more to wait for), or undefined when nothing is queued. */
function stdoutReady(): Promise<void> | undefined {
  const s = process.stdout;
  if (!s.writableNeedDrain) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      s.off('drain', done);
      s.off('close', done);
      s.off('error', done);
      resolve();
    };
    s.on('drain', done);
    s.on('close', done);
    s.on('error', done);
  });
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
  ready: stdoutReady,
};

/**
 * Characters never written raw to a terminal: C0 controls but line break and
 * tab, DEL, C1 controls (so ESC/CSI/OSC sequences cannot clear the screen,
 * retitle it or write the clipboard), the bidi controls that reorder what is
 * shown (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C), and lone
 * surrogates.
 */
const UNSAFE = new RegExp(
  [
    '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]',
    '[\\ud800-\\udbff](?![\\udc00-\\udfff])',
    '(?<![\\ud800-\\udbff])[\\udc00-\\udfff]',
  ].join('|'),
  'g',
);
const UNSAFE_ONE = new RegExp(`^(?:${UNSAFE.source})$`);
const MAYBE_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/;
/** Anything shortField must look at character by character: what may be unsafe, line breaks and tabs, and surrogates (a pair is one character wide). */
const NEEDS_CARE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/;

/** The visible escape of one unsafe character: `\u001B`, which inside a JSON string is the same character. */
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The one output sanitizer of the CLI: every line it prints (text, and JSON,
 * where the escapes are JSON's own so the value is unchanged) goes through it.
 */
export function sanitizeOutput(text: string): string {
  // One plain character class first (a superset: every surrogate): most output has none, and this scan is cheap.
  return MAYBE_UNSAFE.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/**
 * A label, name or id shown inside a line: on one line, at most `max`
 * characters as shown (an escape counts its full width), cut with '…'
 * between characters, never inside a surrogate pair or an escape.
 */
export function shortField(raw: string, max = 40): string {
  const text = String(raw);
  // Plain text (the rows of a million-entry tree, mostly) is as wide as it is long.
  if (!NEEDS_CARE.test(text)) return text.length <= Math.max(0, max) ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
  let out = '';
  let used = 0;
  let cut: string | undefined; // what fits with room for the '…'
  for (const ch of text) {
    const plain = ch === '\r' || ch === '\n' || ch === '\t' ? ' ' : ch;
    const shown = UNSAFE_ONE.test(plain) ? escapeChar(plain) : plain;
    const w = shown.length > 2 ? shown.length : 1; // an escape is as wide as it is; a character or a pair is one
    if (cut === undefined && used + w > max - 1) cut = out;
    used += w;
    if (used > max) return `${cut}…`;
    out += shown;
  }
  return out;
}

/** An Io whose every line is sanitized (runCli wraps the Io it is given in one). */
export function sanitizedIo(io: Io): Io {
  return { out: (t) => io.out(sanitizeOutput(t)), err: (t) => io.err(sanitizeOutput(t)), ready: io.ready };
}

/**
 * Output is written in chunks of about this many characters: small enough that a chunk (two bytes a
 * character once a tree row has a box-drawing guide) stays out of V8's large-object space, where joining
 * and scanning each 128 KB string cost ten times more (2.7 s of a 1e6-entry tree).
 */
const CHUNK = 16 * 1024;

/** What writeLines writes: lines, and promises to wait on before the lines after them (entries being loaded, say). */
export type LineSource = Iterable<string | Promise<void>>;

/**
 * The CLI's one writer of long output: lines gathered into chunks of about
 * CHUNK characters and written as they are made, never held whole; after
 * each chunk, waits while the output still holds earlier ones (a slow
 * pipe), so memory stays bounded.
 */
export async function writeLines(io: Io, lines: LineSource): Promise<void> {
  let buf: string[] = [];
  let size = 0;
  for (const text of lines) {
    if (typeof text !== 'string') {
      await text;
      continue;
    }
    buf.push(text);
    size += text.length + 1;
    if (size < CHUNK) continue;
    io.out(`${buf.join('\n')}\n`);
    buf = [];
    size = 0;
    const waiting = io.ready?.();
    if (waiting) await waiting;
  }
  if (buf.length) io.out(`${buf.join('\n')}\n`);
}

/**
 * Prints JSON.stringify(value, null, 2), made and written a chunk of lines at
 * a time (jsonLines.ts): a result listing 5e5 entry ids is never one string,
 * nor queued whole.
 */
export function printJson(io: Io, value: unknown): Promise<void> {
  return writeLines(io, jsonLines(value));
}

/** Lines that were skipped or repaired in memory are reported on stderr, named by file and line. */
export function reportDiagnostics(io: Io, index: SessionIndex): void {
  const seen = new Set<string>();
  for (const d of index.diagnostics) {
    const text = formatDiagnostic(d);
    if (seen.has(text)) continue;
    seen.add(text);
    io.err(`warning: ${text}`);
  }
}
