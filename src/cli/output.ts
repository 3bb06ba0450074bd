import { formatDiagnostic } from '../engine/session/diagnostics';
import type { SessionIndex } from '../engine/session/sessionIndex';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
};

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** Lines that were skipped or repaired in memory are reported on stderr, named by file and line. */
export function reportDiagnostics(io: Io, index: SessionIndex): void {
  const seen = new Set<string>();
  for (const d of index.diagnostics) {
    const text = formatDiagnostic(d);
    if (seen.has(text)) continue;
    seen.add(text);
    io.err(`warning: ${text}`);
  }
}
