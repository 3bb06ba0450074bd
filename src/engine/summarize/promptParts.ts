/**
 * The parts of a summary prompt besides the conversation (the previous
 * summary, the pinned entries, the file lists, the user's focus), each
 * bounded to a share of the summarizer's window: a 10 MB checkpoint or a
 * list of 100,000 files never makes a request the model cannot take. What is
 * left out is said in a note. Parts that fit are unchanged.
 */

/** Share of the window's room (in characters) each part may take. */
export const PART_SHARES = { previousSummary: 1 / 4, pinned: 1 / 8, files: 1 / 8, customInstructions: 1 / 16 } as const;
/** The fewest characters a part is given, however small the window. */
export const MIN_PART_CHARS = 2000;

export type PromptPart = keyof typeof PART_SHARES;

const PART_NAMES: Record<PromptPart, string> = {
  previousSummary: 'previous summary',
  pinned: 'pinned entries',
  files: 'file lists',
  customInstructions: 'focus instructions',
};

/** Characters `part` may take out of `roomChars` (the window less the output, in characters), never more than `maxChars`. */
export function partBudget(part: PromptPart, roomChars: number, maxChars: number): number {
  return Math.floor(Math.min(maxChars, Math.max(MIN_PART_CHARS, roomChars * PART_SHARES[part])));
}

/** The note that ends a part cut to its budget. */
export function partCutNote(part: PromptPart, leftOut: number, unit: 'characters' | 'files'): string {
  return `[${PART_NAMES[part]} cut here: ${leftOut} more ${unit} left out, they do not fit the summarizer's context window]`;
}

const NOTE_ROOM = 160;

/** `text` within `max` characters: its beginning (surrogate pairs kept whole) and a note of what was left out. */
export function boundPart(part: PromptPart, text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - NOTE_ROOM);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}\n${partCutNote(part, text.length - end, 'characters')}`;
}

/** The `<files-touched>` body: changed then read files, as many whole lines as fit in `max`, then a note. */
export function boundFileLists(files: { readFiles: readonly string[]; modifiedFiles: readonly string[] }, max: number): string {
  const lines: string[] = [];
  let used = 0;
  let left = 0;
  const add = (line: string) => {
    if (left || used + line.length + 1 > max - NOTE_ROOM) {
      left++;
      return;
    }
    lines.push(line);
    used += line.length + 1;
  };
  const head = (line: string) => {
    lines.push(line);
    used += line.length + 1;
  };
  head('changed:');
  for (const f of files.modifiedFiles) add(`- ${f}`);
  const changedLeft = left;
  left = 0;
  head('read:');
  for (const f of files.readFiles) add(`- ${f}`);
  if (changedLeft + left) lines.push(partCutNote('files', changedLeft + left, 'files'));
  return lines.join('\n');
}
