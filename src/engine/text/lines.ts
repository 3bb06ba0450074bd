/** Lines of a text read without splitting the whole of it (a tool's output can be megabytes). */

/** The first line with text, trimmed (read up to it only). */
export function firstLine(text: string): string {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    if (line) return line;
    start = end + 1;
  }
  return '';
}

/** A line that says what went wrong (not a file name or a progress line before it). */
const TELLING =
  /^not ok\b|\b(?:error|errors|fail(?:s|ed|ure)?|exception|cannot|can't|could not|not found|no such|denied|invalid|refused|unexpected|problems?)\b|✖|✗/i;
/** An error's class name ("TypeError", "ENOENT" is matched by its message). */
const ERROR_NAME = /\b[A-Z][A-Za-z]*(?:Error|Exception)\b/;
/** Pi's bash tool's closing line, which says how it ended, not why. */
const EXIT_LINE = /^Command exited with code \d+$/;
/** How far into an error text its telling line is looked for. */
const SCAN_LINES = 40;

/**
 * The line of an error text that says what went wrong: the first of its
 * first lines that names an error or a failure ("3:7 error 'x' is never
 * used", "✖ 1 problem"), else its first line (a linter's output starts with
 * the file's name; a tool's error with its message). Reads at most the
 * first SCAN_LINES lines.
 */
export function errorLineOf(text: string): string {
  let start = 0;
  let first = '';
  let file = '';
  for (let n = 0; n < SCAN_LINES && start < text.length; n++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (!line || EXIT_LINE.test(line)) continue;
    // A linter names the file on a line of its own, then its findings by line:column.
    if (TELLING.test(line) || ERROR_NAME.test(line)) return file && LINE_COLUMN.test(line) ? `${file}:${line}` : line;
    if (!first) first = line;
    file = FILE_NAME.test(line) ? line : '';
  }
  return first;
}

/** A line that is a file's name alone ("src/app.js"). */
const FILE_NAME = /^[\w./@-]{1,200}\.[A-Za-z0-9]{1,8}$/;
/** A finding's `line:column` at the start of its line. */
const LINE_COLUMN = /^\d+:\d+\b/;
