import { findPatterns } from './multiMatch';
import { normalizeText, normalizedCwd, probeOf, relativizePaths } from '../offline/normalize';
import type { Fact } from './facts';

/**
 * Which facts a summary keeps: each fact's normalized start (up to 60
 * characters, at a word end) must occur in the normalized summary. Case,
 * whitespace, quotes/backticks/emphasis and `./` or cwd-absolute paths do
 * not matter; words do. All facts are searched in one pass over the summary
 * (linear in the summary plus the facts, however many).
 */

export interface RetentionReport {
  kept: Fact[];
  missing: Fact[];
}

export interface CheckOptions {
  /** The session's cwd: an absolute path under it is the same as the relative one. */
  cwd?: string;
}

/** Longest probe (keeps the matcher's per-position work bounded). */
const PROBE_MAX = 60;

export function factProbe(fact: Fact, cwdPrefix: string): string {
  return probeOf(
    relativizePaths(normalizeText(fact.text.length > 4 * PROBE_MAX ? fact.text.slice(0, 4 * PROBE_MAX) : fact.text), cwdPrefix),
    PROBE_MAX,
  );
}

export function checkRetention(summary: string, facts: readonly Fact[], options: CheckOptions = {}): RetentionReport {
  const cwd = normalizedCwd(options.cwd);
  const text = relativizePaths(normalizeText(typeof summary === 'string' ? summary : ''), cwd);
  const found = findPatterns(
    text,
    facts.map((f) => factProbe(f, cwd)),
  );
  const kept: Fact[] = [];
  const missing: Fact[] = [];
  facts.forEach((f, i) => (found[i] ? kept : missing).push(f));
  return { kept, missing };
}
