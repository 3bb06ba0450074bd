/** Problems found in a session file. Every one names the file and the 1-based line. */

export interface Diagnostic {
  file: string;
  line: number;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}: ${d.message}`;
}

/** Bad input that stops an operation: the message names the file and the line. */
export class SessionFormatError extends Error {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line}: ${message}`);
    this.name = 'SessionFormatError';
    this.file = file;
    this.line = line;
  }
}

/** An operation the user asked for that cannot be done as asked (not a bug, not bad bytes). */
export class ArborUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArborUsageError';
  }
}
