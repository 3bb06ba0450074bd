import type { ParsedSummary } from './parseSummary';
import { isRecord } from '../session/jsonObject';

export interface SummaryFileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

/**
 * The file lists a summary entry records, as the summary panel and `arbor
 * summary` show them: the entry's `details` lists (what the next compaction
 * carries over, see planCompaction's addDetailsFileOps), each falling back to
 * the `<read-files>`/`<modified-files>` blocks of its text when `details` has
 * no such list. Non-string items are left out.
 */
export function summaryFileLists(details: unknown, parsed: ParsedSummary): SummaryFileLists {
  const d = isRecord(details) ? details : undefined;
  const list = (v: unknown, fallback: string[]) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : fallback);
  return { readFiles: list(d?.readFiles, parsed.readFiles), modifiedFiles: list(d?.modifiedFiles, parsed.modifiedFiles) };
}
