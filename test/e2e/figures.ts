/** A figure as a panel shows it ("1,234", "~1,234 tokens"): its digits as a number. */
export const digits = (s: string | null): number => Number((s ?? '').replace(/[^\d]/g, ''));
