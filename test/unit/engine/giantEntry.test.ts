import * as assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { entryTokens, estimateFromBytes } from '../../../src/engine/context/entryTokens';
import { readAppended } from '../../../src/engine/session/tail';
import { searchSession, type SearchHit } from '../../../src/engine/search/searchSession';
import { writeGiantSession, type GiantSessionLayout } from '../../support/giantSession';
import { builtCli, runBuiltCli } from '../../support/cliProcess';
import { loadWhole } from '../../support/loadWhole';

/**
 * Issue 13 item 1: one 500 MB entry line (a pasted blob, a runaway tool
 * output) neither crashes nor stalls a load. The line is passed over in
 * bounded memory (the reader never holds it), indexed from its leading
 * fields, shown empty and estimated from its size; the entries around it
 * are indexed and counted as usual. The file is written in 1 MB pieces, so
 * the test itself never holds a 500 MB string either.
 */

const MB = 1024 * 1024;

/** Peak resident memory while `f` runs (sampled), in MB above what it was before. */
async function peakRssGrowth<T>(f: () => Promise<T>): Promise<{ value: T; growthMb: number; ms: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  try {
    const value = await f();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growthMb: (peak - base) / MB, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

/** Copies the first `bytes` of `from` to `to`. */
function copyPrefix(from: string, to: string, bytes: number): void {
  const buf = Buffer.alloc(bytes);
  const fd = openSync(from, 'r');
  try {
    readSync(fd, buf, 0, bytes, 0);
  } finally {
    closeSync(fd);
  }
  writeFileSync(to, buf);
}

/** Appends the bytes of `from` after offset `start` to `to`, 4 MB at a time. */
function appendRest(from: string, to: string, start: number): void {
  const buf = Buffer.allocUnsafe(4 * MB);
  const src = openSync(from, 'r');
  const dst = openSync(to, 'a');
  try {
    for (let pos = start; ;) {
      const n = readSync(src, buf, 0, buf.length, pos);
      if (n === 0) break;
      writeSync(dst, buf, 0, n);
      pos += n;
    }
  } finally {
    closeSync(src);
    closeSync(dst);
  }
}

describe('a single 500 MB entry (issue 13 item 1)', function () {
  let dir: string;
  let file: string;
  let layout: GiantSessionLayout;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-giant-'));
    file = path.join(dir, 'giant.jsonl');
    layout = writeGiantSession(file, 500 * MB);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is indexed in bounded memory, estimated from its size, with every entry around it indexed and counted', async () => {
    const { value: index, growthMb, ms } = await peakRssGrowth(() => loadSession(file));
    console.log(
      `      500 MB entry: loaded in ${ms.toFixed(0)} ms, peak RSS +${growthMb.toFixed(0)} MB (process maxRSS ` +
        `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB)`,
    );
    assert.ok(growthMb < 200, `the load grew RSS by ${growthMb.toFixed(0)} MB (the line is 500 MB: it must never be held)`);
    assert.deepEqual(
      [...Array(index.entryCount).keys()].map((i) => index.record(i).id),
      layout.ids,
    );
    const giant = index.indexOf(layout.giantId);
    assert.equal(index.record(giant).line, layout.giantLine);
    assert.equal(index.record(giant).end - index.record(giant).start, layout.giantBytes);
    assert.ok(
      index.diagnostics.some(
        (d) => d.file === file && d.line === layout.giantLine && /500 MB, larger than the 16 MB Arbor parses; indexed/.test(d.message),
      ),
      JSON.stringify(index.diagnostics),
    );
    assert.equal(index.parentIndex(giant + 1), giant, 'the entry after it is its child');
    // Loaded as the layer doing I/O loads them (the giant's line is never read: it shows as its placeholder).
    const loaded = await peakRssGrowth(() => loadWhole(index));
    assert.ok(loaded.growthMb < 100, `loading grew RSS by ${loaded.growthMb.toFixed(0)} MB`);
    const counted = await peakRssGrowth(async () => layout.ids.map((_, i) => entryTokens(index, i, 'tokenizer')));
    assert.equal(counted.value[giant], estimateFromBytes(layout.giantBytes), 'the documented estimate: bytes / 4');
    counted.value.forEach((t, i) => i !== giant && assert.ok(t > 5 && t < 50, `entry ${i}: ${t} tokens`));
    assert.ok(counted.growthMb < 200, `counting grew RSS by ${counted.growthMb.toFixed(0)} MB`);
    const shown = await peakRssGrowth(async () => index.entry(giant) as unknown as { message: { content: unknown[] } });
    assert.deepEqual(shown.value.message.content, [], 'shown empty, its bytes never read');
    assert.ok(shown.growthMb < 100, `showing it grew RSS by ${shown.growthMb.toFixed(0)} MB`);
  });

  it('appended to a watched session, it is read in bounded memory too', async () => {
    const live = path.join(dir, 'live.jsonl');
    const first = await loadSession(file);
    const giantStart = first.record(first.indexOf(layout.giantId)).start;
    copyPrefix(file, live, giantStart);
    const index = await loadSession(live);
    assert.equal(index.entryCount, layout.ids.indexOf(layout.giantId));
    appendRest(file, live, giantStart);
    const { value: tail, growthMb, ms } = await peakRssGrowth(() => readAppended(index));
    console.log(`      500 MB entry appended: read in ${ms.toFixed(0)} ms, peak RSS +${growthMb.toFixed(0)} MB`);
    assert.equal(tail.replaced, false);
    assert.deepEqual(
      [...Array(index.entryCount).keys()].map((i) => index.record(i).id),
      layout.ids,
    );
    assert.ok(growthMb < 200, `reading the append grew RSS by ${growthMb.toFixed(0)} MB`);
    assert.equal(entryTokens(index, index.indexOf(layout.giantId), 'chars'), estimateFromBytes(layout.giantBytes));
  });

  it('arbor context and arbor tree finish on it with the estimate and a warning naming the file and line', async function () {
    assert.ok(existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const hook = path.join(dir, 'maxrss.js');
    writeFileSync(
      hook,
      "process.on('exit', () => process.stderr.write(`maxRSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\\n`));\n",
    );
    for (const command of ['context', 'tree']) {
      const t0 = performance.now();
      const run = await runBuiltCli([command, file], { killAfterMs: 60_000, env: { NODE_OPTIONS: `--require ${hook}` } });
      const maxRss = Number(/maxRSS (\d+) MB/.exec(run.stderr)?.[1]);
      console.log(`      arbor ${command}: ${(performance.now() - t0).toFixed(0)} ms, maxRSS ${maxRss} MB`);
      assert.equal(run.killed, false, `arbor ${command} hung`);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /giant0 .*131072000/);
      assert.match(run.stdout, /500 MB entry, too large to show; tokens estimated from its size/);
      assert.match(run.stdout, /a2 /, 'the entries after it are shown');
      assert.ok(run.stderr.includes(`${file}:${layout.giantLine}: the line is 500 MB`), run.stderr);
      assert.ok(maxRss < 400, `arbor ${command} peaked at ${maxRss} MB`);
    }
  });
});

describe('lines too long to parse, in other shapes (issue 13 item 1)', function () {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-long-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a long line whose fields are not in Pi order is skipped and reported with its file and line; the rest is indexed', async () => {
    const file = path.join(dir, 'reordered.jsonl');
    const layout = writeGiantSession(file, 40 * MB, { reordered: true });
    const index = await loadSession(file);
    assert.deepEqual(
      [...Array(index.entryCount).keys()].map((i) => index.record(i).id),
      layout.ids,
    );
    assert.ok(
      index.diagnostics.some(
        (d) => d.line === layout.giantLine && /40 MB, larger than the 16 MB Arbor parses; line skipped/.test(d.message),
      ),
      JSON.stringify(index.diagnostics),
    );
  });

  it('search passes over a line too long to search, reports it, and finds the lines after it on their line numbers', async () => {
    const file = path.join(dir, 'search.jsonl');
    const layout = writeGiantSession(file, 40 * MB);
    for (const chunkBytes of [4 * MB, 1 * MB]) {
      const hits: SearchHit[] = [];
      const result = await searchSession(file, { query: 'after the giant entry', onHit: (h) => hits.push(h), chunkBytes });
      assert.deepEqual(result.skippedLines, [layout.giantLine]);
      assert.deepEqual(
        hits.map((h) => h.line),
        [layout.giantLine + 1, layout.giantLine + 2, layout.giantLine + 3],
      );
      assert.deepEqual(
        hits.map((h) => h.entryId),
        layout.ids.slice(-3),
      );
    }
  });

  // 20 MB: read to the end of the file in the reader's buffer (under twice the parse limit); 40 MB: passed over as a long line.
  for (const size of [20, 40])
    it(`a long last line (${size} MB) without its line break is left unread as a line a writer has not finished, and read once finished`, async () => {
      const file = path.join(dir, 'cut.jsonl');
      const layout = writeGiantSession(file, size * MB, { after: 0 });
      // Drop the final line break: the giant line is now the cut-off last line.
      const { truncateSync, statSync } = await import('node:fs');
      truncateSync(file, statSync(file).size - 1);
      const index = await loadSession(file);
      assert.deepEqual(
        [...Array(index.entryCount).keys()].map((i) => index.record(i).id),
        layout.ids.slice(0, -1),
      );
      assert.ok(index.hasIncompleteLine);
      assert.equal(index.lineCount, layout.giantLine - 1);
      assert.ok(
        index.diagnostics.some((d) => d.line === layout.giantLine && /incomplete/.test(d.message)),
        JSON.stringify(index.diagnostics),
      );
      const { appendFileSync } = await import('node:fs');
      appendFileSync(file, '\n');
      const tail = await readAppended(index);
      assert.equal(tail.added, 1);
      assert.equal(index.record(index.leafIndex).id, layout.giantId);
      assert.equal(entryTokens(index, index.leafIndex, 'tokenizer'), estimateFromBytes(layout.giantBytes));
    });
});
