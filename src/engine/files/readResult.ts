import { isTextBlock } from '../session/contentBlocks';
import { isRecord } from '../session/jsonObject';
/**
 * Whether a `read` tool result holds a file's whole text. Pi's read tool
 * returns the selected lines joined back with "\n" (so a whole read is the
 * exact file text), starts at line `offset` (1-based; absent, 0 or 1 mean the
 * first line), and ends a partial result with a bracketed notice after a
 * blank line ("[N more lines in file. Use offset=…]", "[Showing lines …]",
 * "[Line N is …]"); truncation also sets `details.truncation`. Images come as
 * a short text plus an image block. Anything that may be partial is not a base.
 */
export function fullReadText(args: Record<string, unknown>, content: unknown, details: unknown): string | undefined {
  const offset = args.offset;
  if (offset !== undefined && !(typeof offset === 'number' && offset <= 1)) return undefined;
  if (args.limit !== undefined && typeof args.limit !== 'number') return undefined;
  if (isRecord(details) && details.truncation !== undefined) return undefined;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const block: unknown = content[0];
  if (!isTextBlock(block) || typeof block.text !== 'string') return undefined;
  const text = block.text;
  if (endsWithNotice(text)) return undefined;
  return text;
}

/** The text's last paragraph (after the last blank line, or all of it) is one bracketed line. */
function endsWithNotice(text: string): boolean {
  if (!text.endsWith(']')) return false;
  const lastBreak = text.lastIndexOf('\n');
  const lastLine = text.slice(lastBreak + 1);
  return lastLine.startsWith('[') && (lastBreak < 0 || text.lastIndexOf('\n\n') === lastBreak - 1);
}

/**
 * Why a whole read's text may not be the file's bytes, or undefined: Pi's
 * read decodes any file that is not an image as UTF-8 (Buffer.toString), so
 * bytes that do not decode come out as U+FFFD and cannot be told from a real
 * U+FFFD; an image Pi could not process comes as a note alone ("Read image
 * file [mime]" and the error). Such text never stands for the file's content.
 */
export function lossyReadReason(text: string): string | undefined {
  if (text.includes('\uFFFD')) return 'the session saw it only as lossy text (bytes that are not UTF-8: a binary file?)';
  if (/^Read image file \[[^\]\n]*\]/.test(text)) return 'the session saw it only as an image';
  return undefined;
}
