/**
 * The one home of secret redaction (CLI, engine write path, extension).
 *
 * Keys Arbor hands to a provider are remembered here (`rememberSecret`), and
 * every text that leaves Arbor (a session entry, a CLI line, a log line, a
 * notification, the panel) goes through one of:
 * - `redactKnownSecrets`: removes every form of every known key (raw, URL
 *   encoded, and base64/base64url at any byte alignment, which covers the key
 *   inside `Bearer …`, `user:key`, `key:` and any longer encoded header). Used
 *   on text written into a session: it never touches text that is no key.
 * - `redact`: the same plus anything shaped like a credential (Bearer/Basic
 *   tokens, api-key fields, `sk-…` keys) that a provider or proxy may echo.
 *   Used on what is shown or printed.
 * Linear in the text: a fixed set of literal replacements and simple patterns.
 */

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

const formsCache = new Map<string, string[]>();

/** Every form of `secret` that must not appear anywhere: raw, URL-encoded, base64 and base64url (any alignment, so inside `Bearer …`, `user:key`, `key:`). */
export function secretForms(secret: string): string[] {
  const cached = formsCache.get(secret);
  if (cached) return cached;
  const forms = new Set<string>([secret, encodeURIComponent(secret)]);
  for (const core of base64Cores(Buffer.from(secret, 'utf8'))) {
    forms.add(core);
    forms.add(encodeURIComponent(core));
  }
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

/** `text` with every form of every remembered key (and of `extra`) replaced by [redacted]; nothing else changes. */
export function redactKnownSecrets(text: string, extra: readonly (string | undefined | null)[] = []): string {
  let out = text;
  for (const secret of secretsOf(extra)) {
    for (const form of secretForms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}

const PATTERNS: [RegExp, string][] = [
  // Authorization: Bearer <token> / Basic <token>
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // x-api-key: <key>, "api_key": "<key>", apiKey=<key>, authorization=<key>
  [/\b(x-api-key|api[-_]?key|authorization|access[-_]?token)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)[^\s"',;&}]{6,}/gi, `$1$2${REDACTED}`],
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
  return secretsOf(extra).some((s) => secretForms(s).some((f) => text.includes(f)));
}
