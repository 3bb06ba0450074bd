/**
 * Issue 11 item 2, issue 22 item 3: memory and file opens of reading every
 * entry body of the 100 MB bench session, loaded (SessionIndex.load) a page
 * of PAGE entries at a time and each read through SessionIndex.entry(), the
 * pages released to the bounded cache.
 *   node --expose-gc out/bench/entryPass.js [MB]
 * Prints heap after indexing, heap after the full pass (both after a full
 * GC), the number of file opens during the pass, and its time, as JSON.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { loadSession } from '../src/engine/session/loadSession';

/** Entries per load: a page of the Sessions view. */
const PAGE = 256;

const gc = (globalThis as { gc?: () => void }).gc;

function heapMB(): number {
  gc!();
  gc!();
  return Math.round((process.memoryUsage().heapUsed / 1048576) * 10) / 10;
}

/** Counts opens through every fs entry point the engine uses. */
function countOpens(): { count: number } {
  const counter = { count: 0 };
  // The module object itself (a namespace import is a copy): the engine's calls look their functions up on it.
  const real = process.getBuiltinModule('node:fs') as { openSync: typeof fs.openSync; promises: { open: typeof fs.promises.open } };
  const openSync = real.openSync;
  real.openSync = ((...args: Parameters<typeof fs.openSync>) => {
    counter.count++;
    return openSync(...args);
  }) as typeof fs.openSync;
  const open = real.promises.open;
  real.promises.open = ((...args: Parameters<typeof fs.promises.open>) => {
    counter.count++;
    return open(...args);
  }) as typeof fs.promises.open;
  return counter;
}

async function main(): Promise<void> {
  if (!gc) throw new Error('run with node --expose-gc');
  const mb = Number(process.argv[2] ?? 100);
  const file = path.join(__dirname, '..', '..', 'bench', '.data', `session-${mb}mb.jsonl`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await generateSession({ file, targetBytes: mb * 1024 * 1024 });
  }
  const opens = countOpens();
  const heapBefore = heapMB();
  const t0 = performance.now();
  const index = await loadSession(file);
  const indexMs = performance.now() - t0;
  const heapAfterIndex = heapMB();
  const opensBefore = opens.count;
  const t1 = performance.now();
  let chars = 0;
  for (let at = 0; at < index.entryCount; at += PAGE) {
    const page = Array.from({ length: Math.min(PAGE, index.entryCount - at) }, (_, k) => at + k);
    await index.withLoaded(page, () => page.forEach((i) => (chars += index.entry(i).type.length)));
  }
  const passMs = performance.now() - t1;
  const passOpens = opens.count - opensBefore;
  const heapAfterPass = heapMB();
  process.stdout.write(
    JSON.stringify({
      file: path.basename(file),
      entries: index.entryCount,
      indexMs: Math.round(indexMs),
      heapBeforeMB: heapBefore,
      heapAfterIndexMB: heapAfterIndex,
      fullPassMs: Math.round(passMs),
      fullPassOpens: passOpens,
      heapAfterFullPassMB: heapAfterPass,
      ratio: Math.round((heapAfterPass / heapAfterIndex) * 100) / 100,
      check: chars,
    }) + '\n',
  );
}

void main();
