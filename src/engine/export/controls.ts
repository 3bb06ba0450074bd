/** What every export medium does to session text first: control and bidi characters made visible; HTML escaped. */

// C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates, line/paragraph separators.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Control and bidi characters as visible text (`\u{1b}`), everything else unchanged. */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

export function escapeHtml(text: string): string {
  return visibleControls(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
