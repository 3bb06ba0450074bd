/**
 * Keeps API keys out of everything Arbor writes or shows: log lines,
 * notifications, the summary panel's error text. The keys Arbor hands to a
 * provider (from SecretStorage or the environment) are remembered here, and
 * every such text goes through redact(), which replaces them, plus anything
 * shaped like a credential (Bearer tokens, api-key headers, sk-… keys) that a
 * provider or proxy may echo back in an error.
 */

const known = new Set<string>();
const MIN_SECRET_LENGTH = 6;
export const REDACTED = '[redacted]';

/** Remembers a key so that redact() removes it wherever it shows up. */
export function rememberSecret(value: string | undefined | null): void {
  const v = value?.trim();
  if (v && v.length >= MIN_SECRET_LENGTH) known.add(v);
}

const PATTERNS: [RegExp, string][] = [
  // Authorization: Bearer <token> / Basic <token>
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // x-api-key: <key>, "api_key": "<key>", apiKey=<key>, authorization=<key>
  [/\b(x-api-key|api[-_]?key|authorization|access[-_]?token)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)[^\s"',;&}]{6,}/gi, `$1$2${REDACTED}`],
  // Provider key shapes: sk-..., sk-ant-..., sk-proj-...
  [/\bsk-[A-Za-z0-9_-]{10,}/g, REDACTED],
];

/** The text with every remembered key and every credential-shaped token replaced by [redacted]. */
export function redact(text: string): string {
  let out = text;
  // Longest first, so a key that contains another is replaced whole.
  for (const secret of [...known].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}
