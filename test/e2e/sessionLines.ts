// A session file's entries as the UI tests read them back from disk (what Arbor or Pi wrote).
import * as fs from 'fs';

/** Every non-empty line of a session file, parsed. */
export function entries(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
