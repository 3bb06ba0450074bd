import { SECRET_RUN_CHARS } from '../../src/engine/secrets/redact';

/** Whether `text` still holds SECRET_RUN_CHARS consecutive characters of `key`, ignoring case and separators (a check of its own, not the redactor's). */
export function holdsKeyRun(text: string, key: string): boolean {
  const flat = text.replace(/[\s\u200b-\u200f\u2060-\u2064\ufeff\u00ad]/g, '').toLowerCase();
  const k = key.toLowerCase();
  for (let i = 0; i + SECRET_RUN_CHARS <= k.length; i++) if (flat.includes(k.slice(i, i + SECRET_RUN_CHARS))) return true;
  return false;
}
