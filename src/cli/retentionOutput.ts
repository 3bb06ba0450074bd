import type { Fact, RetentionReport } from '../engine/summarize/retention';
import { shortField, type Io } from './output';

/** A retention report as the CLI's JSON has it: each item `kind`, `text` and the entry it came from. */
export function retentionJson(report: RetentionReport): {
  kept: { kind: string; text: string; entryId: string | null }[];
  missing: { kind: string; text: string; entryId: string | null }[];
} {
  const item = (f: Fact) => ({ kind: f.kind, text: f.text, entryId: f.entryId });
  return { kept: report.kept.map(item), missing: report.missing.map(item) };
}

/** One line per missing fact, then a count line. */
export function printRetention(io: Io, report: RetentionReport, options: { kept?: boolean } = {}): void {
  const total = report.kept.length + report.missing.length;
  io.out(
    `retention: the summary keeps ${report.kept.length} of ${total} facts of the summarized span${report.missing.length ? `; missing:` : ''}`,
  );
  const line = (mark: string, f: Fact) =>
    io.out(`  ${mark} ${f.kind}: ${shortField(f.text, 160)}${f.entryId ? ` (entry ${shortField(f.entryId, 40)})` : ''}`);
  for (const f of report.missing) line('✗', f);
  if (options.kept) for (const f of report.kept) line('✓', f);
}
