import { emptySummary, extractFileBlocks } from './parseSummary';
import { takePinnedParts, type PinnedPart } from '../compaction/pinnedParts';

/** A summary as a reader is shown it whole: its text without the file blocks and pinned blocks, and those apart. */
export interface SummaryForReader {
  body: string;
  readFiles: string[];
  modifiedFiles: string[];
  pins: PinnedPart[];
  pinsNote: string | null;
}

/** Splits a summary for a reader (the exports, the entry panel): linear, never throws. */
export function summaryForReader(markdown: string): SummaryForReader {
  const result = emptySummary();
  const text = typeof markdown === 'string' ? markdown.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '') : '';
  const pinned = takePinnedParts(extractFileBlocks(text, result));
  return {
    body: pinned.text.trim(),
    readFiles: result.readFiles,
    modifiedFiles: result.modifiedFiles,
    pins: pinned.pins,
    pinsNote: pinned.note,
  };
}
