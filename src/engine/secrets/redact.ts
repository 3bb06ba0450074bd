/**
 * The one home of secret redaction (CLI, engine write path, extension).
 *
 * Keys Arbor hands to a provider are remembered here (`rememberSecret`), and
 * every text that leaves Arbor (a session entry, a CLI line, a log line, a
 * notification, the panel) goes through one of:
 * - `redactKnownSecrets`: removes every form of every known key (raw, URL
 *   encoded, hex, and base64/base64url at any byte alignment, which covers the
 *   key inside `Bearer …`, `user:key`, `key:` and any longer encoded header),
 *   in any ASCII case, with separators between its characters, and any run of
 *   12 or more of a form's consecutive characters. Used on text written into
 *   a session: it never touches text that holds no such run.
 * - `redact`: the same plus anything shaped like a credential (Bearer/Basic
 *   tokens, api-key fields, `sk-…` keys) that a provider or proxy may echo.
 *   Used on what is shown or printed.
 * Linear in the text: one rolling-hash pass per run length, and simple patterns.
 */

import { skeletonOf } from './secretSkeleton';

export const REDACTED = '[redacted]';
/** Shorter values are not treated as secrets (they would match ordinary text). */
export const MIN_SECRET_LENGTH = 6;

const known = new Set<string>();

/** Remembers a key so that every redaction in this process removes it. */
export function rememberSecret(value: string | undefined | null): void {
  const v = value?.trim();
  if (v && v.length >= MIN_SECRET_LENGTH) known.add(v);
}

/** Remembers the provider keys found in an environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, …). */
export function rememberEnvironmentSecrets(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) if (/(?:^|_)(?:API_KEY|AUTH_TOKEN)$/.test(name)) rememberSecret(value);
}

/** The substrings of base64 that only depend on `bytes`, for each of the 3 byte alignments it can start at. */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const start = Math.ceil((8 * shift) / 6);
    const end = Math.floor((8 * (shift + bytes.length)) / 6);
    const core = b64.slice(start, end);
    if (core.length >= MIN_SECRET_LENGTH) out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** The substrings of base32 (RFC 4648) that only depend on `bytes`, for each of the 5 byte alignments it can start at. */
function base32Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 5; shift++) {
    const all = Buffer.concat([Buffer.alloc(shift), bytes]);
    let bits = '';
    for (const b of all) bits += b.toString(2).padStart(8, '0');
    let b32 = '';
    for (let k = 0; k + 5 <= bits.length; k += 5) b32 += BASE32[parseInt(bits.slice(k, k + 5), 2)];
    const core = b32.slice(Math.ceil((8 * shift) / 5), Math.floor((8 * (shift + bytes.length)) / 5));
    if (core.length >= MIN_SECRET_LENGTH) out.push(core);
  }
  return out;
}

/** ROT13: each ASCII letter moved 13 places. */
function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

const formsCache = new Map<string, string[]>();

/**
 * Every form of `secret` that must not appear anywhere: raw, URL-encoded
 * (encodeURIComponent, and every byte as %XX), hex, base64 and base64url (any
 * alignment, so inside `Bearer …`, `user:key`, `key:`), base32 (any
 * alignment), reversed and ROT13. Matching compares skeletons
 * (secretSkeleton.ts): case, separators, invisible characters, compatibility
 * forms and escapes do not count.
 */
export function secretForms(secret: string): string[] {
  const cached = formsCache.get(secret);
  if (cached) return cached;
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    hex,
    hex.replace(/../g, '%$&'),
    [...secret].reverse().join(''),
    rot13(secret),
  ]);
  for (const core of base64Cores(bytes)) {
    forms.add(core);
    forms.add(encodeURIComponent(core));
  }
  for (const core of base32Cores(bytes)) forms.add(core);
  // Longest first, so that a form containing another is replaced whole.
  const list = [...forms].sort((a, b) => b.length - a.length);
  if (formsCache.size > 64) formsCache.clear();
  formsCache.set(secret, list);
  return list;
}

function secretsOf(extra: readonly (string | undefined | null)[]): string[] {
  const all = new Set(known);
  for (const s of extra) {
    const v = s?.trim();
    if (v && v.length >= MIN_SECRET_LENGTH) all.add(v);
  }
  return [...all].sort((a, b) => b.length - a.length);
}

/** A run of this many consecutive characters of a key's form (or the whole form, if shorter) is redacted. */
export const SECRET_RUN_CHARS = 12;

const HASH_BASE = 0x01000193;

/** The runs to look for, by length: a hash of each run, and the runs themselves to confirm a hit. */
type RunTable = Map<number, Map<number, Uint16Array[]>>;

const tableCache = new Map<string, RunTable>();

function runTable(secrets: readonly string[]): RunTable {
  const cacheKey = secrets.join('\u0000');
  const cached = tableCache.get(cacheKey);
  if (cached) return cached;
  const table: RunTable = new Map();
  for (const secret of secrets) {
    for (const form of secretForms(secret)) for (const run of formRuns(form)) addRun(table, run);
  }
  if (tableCache.size > 16) tableCache.clear();
  tableCache.set(cacheKey, table);
  return table;
}

/**
 * The skeletons of every run of SECRET_RUN_CHARS consecutive characters of
 * `form` (the whole form when shorter): a run's separators are not in its
 * skeleton, so `sk-ant-api03` is looked for as `skantapi03`.
 */
function formRuns(form: string): Uint16Array[] {
  const s = skeletonOf(form);
  if (form.length <= SECRET_RUN_CHARS) return s.length >= MIN_SECRET_LENGTH ? [s.codes.slice(0, s.length)] : [];
  const runs: Uint16Array[] = [];
  for (let i = 0, a = 0, b = 0; i + SECRET_RUN_CHARS <= form.length; i++) {
    while (a < s.length && s.start[a] < i) a++;
    if (b < a) b = a;
    while (b < s.length && s.end[b] <= i + SECRET_RUN_CHARS) b++;
    if (b - a >= MIN_SECRET_LENGTH) runs.push(s.codes.slice(a, b));
  }
  return runs;
}

function addRun(table: RunTable, run: Uint16Array): void {
  let byHash = table.get(run.length);
  if (!byHash) table.set(run.length, (byHash = new Map()));
  const h = hashOf(run, 0, run.length);
  const list = byHash.get(h);
  if (!list) byHash.set(h, [run]);
  else if (!list.some((r) => sameRun(r, run, 0))) list.push(run);
}

function hashOf(codes: Uint16Array, from: number, len: number): number {
  let h = 0;
  for (let k = 0; k < len; k++) h = (Math.imul(h, HASH_BASE) + codes[from + k]) | 0;
  return h;
}

function sameRun(run: Uint16Array, codes: Uint16Array, from: number): boolean {
  for (let k = 0; k < run.length; k++) if (run[k] !== codes[from + k]) return false;
  return true;
}

/**
 * The [start, end) spans of `text` that hold a run of a key's form: found on
 * the skeleton (no separators, one case) with a rolling hash, one pass per
 * run length (one for keys of 12 characters or more). Linear in the text.
 */
function secretSpans(text: string, secrets: readonly string[]): [number, number][] {
  if (!secrets.length || text.length < MIN_SECRET_LENGTH) return [];
  const table = runTable(secrets);
  const sk = skeletonOf(text);
  const marks: [number, number][] = [];
  for (const [len, byHash] of table) {
    if (sk.length < len) continue;
    let pow = 1;
    for (let k = 1; k < len; k++) pow = Math.imul(pow, HASH_BASE);
    let h = hashOf(sk.codes, 0, len);
    for (let i = 0; ; i++) {
      const list = byHash.get(h);
      if (list && list.some((r) => sameRun(r, sk.codes, i))) marks.push([sk.start[i], sk.end[i + len - 1]]);
      if (i + len >= sk.length) break;
      h = (Math.imul(h - Math.imul(sk.codes[i], pow), HASH_BASE) + sk.codes[i + len]) | 0;
    }
  }
  if (marks.length === 0) return [];
  marks.sort((a, b) => a[0] - b[0]);
  const spans: [number, number][] = [];
  for (const [a, b] of marks) {
    const last = spans[spans.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else spans.push([a, b]);
  }
  return spans;
}

/**
 * `text` with every form of every remembered key (and of `extra`) replaced
 * by [redacted]: raw, upper or mixed case, hex, base64, URL-encoded, with
 * separators (spaces, zero-width characters, line breaks) between its
 * characters, and any run of SECRET_RUN_CHARS or more consecutive characters
 * of one of those forms. Nothing else changes. Linear in the text.
 */
export function redactKnownSecrets(text: string, extra: readonly (string | undefined | null)[] = []): string {
  const spans = secretSpans(text, secretsOf(extra));
  if (!spans.length) return text;
  const parts: string[] = [];
  let from = 0;
  for (const [a, b] of spans) {
    parts.push(text.slice(from, a), REDACTED);
    from = b;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

const PATTERNS: [RegExp, string][] = [
  // Authorization: Bearer <token> / Basic <token>
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // x-api-key: <key>, "api_key": "<key>", apiKey=<key>, authorization=<key>
  [
    /\b(x-api-key|api[-_]?key|authorization|access[-_]?token)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)[^\s"',;&}]{6,}/gi,
    `$1$2${REDACTED}`,
  ],
  // Provider key shapes: sk-..., sk-ant-..., sk-proj-...
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
];

/** For text shown or printed: known keys in every form, plus anything shaped like a credential. */
export function redact(text: string, extra: readonly (string | undefined | null)[] = []): string {
  let out = redactKnownSecrets(text, extra);
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}

/** True if any form of a remembered key (or of `extra`) is in `text`. */
export function containsKnownSecret(text: string, extra: readonly (string | undefined | null)[] = []): boolean {
  return secretSpans(text, secretsOf(extra)).length > 0;
}
