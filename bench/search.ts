/**
 * `node out/bench/search.js`: the session search on the 100 MB bench session
 * (generated like `npm run bench`'s, cached in the same folder): time to the
 * first hit and to the end of the scan, for a common word, a rare word near
 * the end (the appended marker) and a word that is nowhere. Also reported as a
 * ratio to a plain read of the file in the same process.
 */
import { existsSync, promises as fsp, statSync } from 'node:fs';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { searchSession } from '../src/engine/search/searchSession';

const dataDir = path.join(__dirname, '..', '..', 'bench', '.data');

async function plainRead(file: string): Promise<number> {
  const t0 = performance.now();
  const fh = await fsp.open(file, 'r');
  const buf = Buffer.alloc(4 * 1024 * 1024);
  try {
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (!bytesRead) break;
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const mb = Number(process.env.ARBOR_BENCH_SEARCH_MB ?? 100);
  await fsp.mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, `session-${mb}mb.jsonl`);
  if (!existsSync(file)) await generateSession({ file, targetBytes: mb * 1024 * 1024 });
  process.stdout.write(`${file}: ${(statSync(file).size / 1048576).toFixed(1)} MB\n`);
  const read = await plainRead(file);
  process.stdout.write(`plain read of the file: ${read.toFixed(0)} ms\n`);
  for (const query of ['parser', 'handler update render', 'zqxjv-nowhere']) {
    const t0 = performance.now();
    let first: number | undefined;
    let hits = 0;
    const r = await searchSession(file, {
      query,
      maxHits: 500,
      onHit: () => {
        first ??= performance.now() - t0;
        hits++;
      },
    });
    const total = performance.now() - t0;
    process.stdout.write(
      `"${query}": first hit ${first === undefined ? '-' : `${first.toFixed(0)} ms`}, ${hits} ` +
        (`hits${r.complete ? '' : ' (stopped at 500)'}, scan ${total.toFixed(0)} ms over ` +
          `${(r.scannedBytes / 1048576).toFixed(0)} MB (${(total / read).toFixed(1)}x a plain read)\n`),
    );
  }
}

void main();
