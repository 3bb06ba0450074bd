/** Issue 22 item 5: no line over 160 characters, and no file over 400 lines without its reason stated at its top. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../support/fixtures';

const MAX_LINE = 160;
const MAX_FILE_LINES = 400;
/** What a long file says in its first lines to explain its length. */
const REASON = /Over 400 lines:/;

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'fixtures' || e.name === '.data' || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tsFiles(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('source shape', () => {
  const files = ['src', 'test', 'bench', 'scripts'].flatMap((d) => tsFiles(path.join(repoRoot, d)));

  it(`no line over ${MAX_LINE} characters in src, test, bench and scripts`, () => {
    const long: string[] = [];
    for (const f of files) {
      fs.readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (line.length > MAX_LINE) long.push(`${path.relative(repoRoot, f)}:${i + 1} (${line.length})`);
        });
    }
    assert.deepEqual(long, []);
  });

  it(`a file over ${MAX_FILE_LINES} lines in src, test, bench and scripts states why at its top ("Over 400 lines: ...")`, () => {
    const unexplained = files
      .filter((f) => {
        const lines = fs.readFileSync(f, 'utf8').split('\n');
        return lines.length > MAX_FILE_LINES && !REASON.test(lines.slice(0, 15).join('\n'));
      })
      .map((f) => path.relative(repoRoot, f));
    assert.deepEqual(unexplained, []);
  });
});
