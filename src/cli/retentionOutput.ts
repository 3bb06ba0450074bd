import { CONTRADICTION_TITLES, type Fact, type RetentionReport } from '../engine/summarize/retention';
import { shortField, type Io } from './output';

type JsonFact = { kind: string; text: string; entryId: string | null };
type JsonContradiction = { kind: string; summary: string; evidence: string; entryId: string | null };

/**
 * A retention report as the CLI's JSON has it: each fact `kind`, `text` and the entry it came from; each
 * contradiction `kind`, the summary's words, the span's evidence and its entry; `cannotCheck` the reason the span
 * cannot be checked (then both lists are empty), or null.
 */
export function retentionJson(report: RetentionReport): {
  kept: JsonFact[];
  missing: JsonFact[];
  contradictions: JsonContradiction[];
  cannotCheck: string | null;
} {
  const item = (f: Fact) => ({ kind: f.kind, text: f.text, entryId: f.entryId });
  return {
    kept: report.kept.map(item),
    missing: report.missing.map(item),
    contradictions: report.contradictions.map((c) => ({ kind: c.kind, summary: c.summary, evidence: c.evidence, entryId: c.entryId })),
    cannotCheck: report.cannotCheck,
  };
}

/** A count line, one line per missing fact (and kept one, with `kept`), then what the summary contradicts; or why it cannot be checked. */
export function printRetention(io: Io, report: RetentionReport, options: { kept?: boolean } = {}): void {
  if (report.cannotCheck) {
    io.out(`retention: cannot check: ${shortField(report.cannotCheck, 400)}`);
    return;
  }
  const total = report.kept.length + report.missing.length;
  io.out(
    `retention: the summary keeps ${report.kept.length} of ${total} facts of the summarized span${report.missing.length ? `; missing:` : ''}`,
  );
  const entry = (id: string | null) => (id ? ` (entry ${shortField(id, 40)})` : '');
  const line = (mark: string, f: Fact) => io.out(`  ${mark} ${f.kind}: ${shortField(f.text, 160)}${entry(f.entryId)}`);
  for (const f of report.missing) line('✗', f);
  if (options.kept) for (const f of report.kept) line('✓', f);
  const n = report.contradictions.length;
  if (!n) return;
  io.out(`retention: the summary states ${n} thing${n === 1 ? '' : 's'} the span contradicts:`);
  for (const c of report.contradictions)
    io.out(
      `  ✗ ${CONTRADICTION_TITLES[c.kind]}: "${shortField(c.summary, 160)}"; the span: ${shortField(c.evidence, 200)}${entry(c.entryId)}`,
    );
}
