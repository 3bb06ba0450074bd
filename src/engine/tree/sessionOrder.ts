/**
 * The one order of a session list (the Sessions view, its search, `arbor sessions` and `arbor search`): by last
 * activity (the newest entry's time, never the file's mtime when the entries have times), newest first; equal times
 * by file path, so the order is stable.
 */
export const SESSION_ORDER_TEXT = 'newest activity first';

export function byLastActivity<T>(list: readonly T[], of: (t: T) => { lastActivityMs: number | undefined; file: string }): T[] {
  const keyed = list.map((t) => ({ t, ...of(t) }));
  keyed.sort((a, b) => (b.lastActivityMs ?? 0) - (a.lastActivityMs ?? 0) || a.file.localeCompare(b.file));
  return keyed.map((k) => k.t);
}

/** "just now", "5 min ago", "3 h ago", "4 d ago", else the date: how long ago a session was active. */
export function relativeTime(ms: number, now = Date.now()): string {
  if (!ms) return '';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return new Date(ms).toLocaleDateString();
}
