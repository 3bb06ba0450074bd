/** 1234 -> "1.2k", 1234567 -> "1.2M". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '?';
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
