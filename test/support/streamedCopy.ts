import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { AUTO_FULL_LIMIT } from '../../src/engine/session/loadSession';

/**
 * A copy of `file` in `dir` followed by blank lines, over the streaming limit: loadSession then indexes it streamed
 * (message lines without their bodies, which stay on disk). Blank lines are skipped: the session is the same.
 */
export async function streamedCopy(file: string, dir: string): Promise<string> {
  const out = path.join(dir, path.basename(file));
  const text = await fsp.readFile(file);
  assert.equal(text[text.length - 1], 0x0a, `${file} ends with a line break`);
  const blank = Buffer.from(`${' '.repeat(64 * 1024 - 1)}\n`);
  const copies = Math.ceil(AUTO_FULL_LIMIT / blank.length) + 1;
  await fsp.writeFile(out, Buffer.concat([text, ...Array.from({ length: copies }, () => blank)]));
  return out;
}
