import { readFileSync, writeFileSync } from 'node:fs';
import { generateTreeSession } from '../../bench/generateTreeSession';

/**
 * A session of about 6 MB (over the 4 MB past which a load streams it), damaged the ways a large file is: a blank
 * line and leading blanks every 997 lines, a key written twice on two lines (the index's key scan reads the first,
 * JSON.parse the last: those rows come from the index), and, with `longLine`, one text 6 MB long (longer than a
 * read block). Used by the tree's row tests and by bench/treeCompare.ts.
 */
export function writeDamagedTreeSession(file: string, options: { longLine?: boolean } = {}): void {
  generateTreeSession({ file, entries: 25_000, branchEvery: 7 });
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((l, k) => (k > 0 && k % 997 === 0 ? `\n   \t${l}` : l));
  lines[5000] = lines[5000].replace(/}$/, ',"id":"twice"}');
  lines[9000] = lines[9000].replace(/}$/, ',"type":"custom","customType":"x"}');
  if (options.longLine) lines[12000] = lines[12000].replace(/"text":"/, `"text":"${'x'.repeat(6 * 1024 * 1024)}`);
  writeFileSync(file, lines.join('\n'));
}
