import { base32 } from './fakeProvider';
import { SECRET_RUN_CHARS } from '../../src/engine/secrets/redact';

/** Whether `text` still holds SECRET_RUN_CHARS consecutive characters of `key`, ignoring case and separators (a check of its own, not the redactor's). */
export function holdsKeyRun(text: string, key: string): boolean {
  const flat = text.replace(/[\s\u200b-\u200f\u2060-\u2064\ufeff\u00ad]/g, '').toLowerCase();
  const k = key.toLowerCase();
  for (let i = 0; i + SECRET_RUN_CHARS <= k.length; i++) if (flat.includes(k.slice(i, i + SECRET_RUN_CHARS))) return true;
  return false;
}

/**
 * Whether `text`, de-obfuscated by this checker's own means (character references and \u/\x escapes decoded by
 * regular expressions, NFKD, everything but letters and digits removed, `0x` dropped), still holds
 * SECRET_RUN_CHARS consecutive letters and digits of the key, its hex, its reverse, its ROT13 or its base32.
 */
export function revealsKey(text: string, key: string): boolean {
  const decoded = text
    .replace(/&#x([0-9a-f]{1,6});?/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d{1,7});?/g, (_, d) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi, (_, a, b, c) => String.fromCodePoint(parseInt(a ?? b ?? c, 16)))
    .replace(/&[a-z]{2,8};/gi, ' ')
    .replace(/0x(?=[0-9a-f])/gi, '');
  const flat = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
      .replace(/[^\p{L}\p{N}]/gu, '')
      .toLowerCase();
  const hay = flat(decoded);
  const rot13 = key.replace(/[a-z]/gi, (c) =>
    String.fromCharCode(((c.charCodeAt(0) - (c <= 'Z' ? 65 : 97) + 13) % 26) + (c <= 'Z' ? 65 : 97)),
  );
  const needles = [key, Buffer.from(key).toString('hex'), [...key].reverse().join(''), rot13].map(flat);
  for (const pad of ['', 'x', 'xx', 'xxx', 'xxxx']) needles.push(flat(base32(Buffer.from(pad + key))).slice(pad.length * 2, -1));
  for (const n of needles)
    for (let i = 0; i + SECRET_RUN_CHARS <= n.length; i++) if (hay.includes(n.slice(i, i + SECRET_RUN_CHARS))) return true;
  return false;
}
