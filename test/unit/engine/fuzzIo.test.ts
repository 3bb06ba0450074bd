/**
 * Fuzzing session I/O (issue 13 items 5 and 6): paths that are not regular
 * files, lines another writer is still writing or died in, and long
 * unbroken lines through the loaders and the writer. Never a hang, never a
 * torn or lost line, never a changed existing byte.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { loadSession } from '../../../src/engine/session/loadSession';
import { streamSession } from '../../../src/engine/session/streamSession';
import { loadTailPreview } from '../../../src/engine/session/tailPreview';
import { appendEntries } from '../../../src/engine/session/writer';
import { NotRegularFileError } from '../../../src/engine/session/sessionFile';
import { loadedSession, streamedSession } from '../../support/loadWhole';

const HEADER = JSON.stringify({ type: 'session', version: 3, id: 'fuzz-io', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp' });

function otherWritersLine(parentId: string | null, body: string): string {
  return (
    JSON.stringify({
      type: 'custom',
      id: 'other001',
      parentId,
      timestamp: '2026-01-01T00:00:00.000Z',
      customType: 'other',
      data: { body },
    }) + '\n'
  );
}

function badLines(text: string): string[] {
  return text.split('\n').filter((l) => {
    if (!l.trim()) return false;
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
}

describe('fuzz: session I/O', function () {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-fuzz-io-'));
  });

  it('paths that are not regular files (FIFOs, directories, devices, links to them) are refused by every reader, never block', async function () {
    if (process.platform === 'win32') this.skip();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('fifo', 'dir', 'dev', 'link-fifo', 'link-dir'),
        fc.constantFrom('full', 'fast', 'auto') as fc.Arbitrary<'full' | 'fast' | 'auto'>,
        async (kind, validation) => {
          const p = path.join(dir, `special-${n++}.jsonl`);
          if (kind === 'fifo') execFileSync('mkfifo', [p]);
          else if (kind === 'dir') await fsp.mkdir(p);
          else if (kind === 'dev') await fsp.symlink('/dev/null', p);
          else {
            const target = `${p}.target`;
            if (kind === 'link-fifo') execFileSync('mkfifo', [target]);
            else await fsp.mkdir(target);
            await fsp.symlink(target, p);
          }
          await assert.rejects(loadSession(p, { validation }), NotRegularFileError);
          await assert.rejects(streamSession(p), NotRegularFileError);
          await assert.rejects(loadTailPreview(p, { bytes: 4096 }), NotRegularFileError);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('another writer finishing its line while Arbor appends: both entries intact (any split point, any body)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sessionArb,
        fc.string({ maxLength: 3000 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        async (steps, body, at) => {
          const file = path.join(dir, `live-${n++}.jsonl`);
          await fsp.writeFile(file, renderSession(steps));
          const index = await loadedSession(file);
          const line = Buffer.from(otherWritersLine(index.leafId, body));
          const split = Math.max(1, Math.min(line.length - 1, Math.floor(line.length * at)));
          await fsp.appendFile(file, line.subarray(0, split));
          const before = await fsp.readFile(file);
          const appending = appendEntries(index, [{ type: 'custom', customType: 'arbor' }], {
            incompleteLine: { quietMs: 30_000, maxWaitMs: 60_000 },
          });
          setTimeout(() => void fsp.appendFile(file, line.subarray(split)), 60);
          const [mine] = await appending;
          const after = await fsp.readFile(file);
          assert.deepEqual(after.subarray(0, before.length), before);
          assert.deepEqual(badLines(after.toString('utf8')), badLines(before.subarray(0, before.length - split).toString('utf8')));
          assert.equal(mine.parentId, 'other001');
          const reloaded = await loadedSession(file);
          assert.equal(reloaded.leafId, mine.id);
          assert.ok(reloaded.has('other001'));
        },
      ),
      { numRuns: 15 },
    );
  });

  it("a dead writer's torn line of any length and content stays as it is; the append starts a new line", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sessionArb,
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 500 }),
          fc.integer({ min: 1, max: 2_000_000 }).map((k) => '{"type":"message","data":"' + 'A'.repeat(k)),
        ),
        async (steps, torn) => {
          if (!torn.trim() || torn.includes('\n')) return;
          const file = path.join(dir, `dead-${n++}.jsonl`);
          await fsp.writeFile(file, renderSession(steps) + torn);
          const index = await loadedSession(file);
          const before = await fsp.readFile(file);
          const [mine] = await appendEntries(index, [{ type: 'custom', customType: 'after' }], { incompleteLine: { quietMs: 20 } });
          const after = await fsp.readFile(file);
          assert.deepEqual(after.subarray(0, before.length), before);
          const added = after.subarray(before.length).toString('utf8');
          assert.ok(added === `\n${JSON.stringify(mine)}\n` || added === `${JSON.stringify(mine)}\n`, added.slice(0, 100));
          assert.equal((await loadedSession(file)).leafId, mine.id);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('long unbroken lines (a message, a garbage line, the header) through every loader and the writer', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 64 * 1024, max: 6 * 1024 * 1024 }),
        fc.constantFrom('=', 'A', 'ab+/', '\u00e9', '\\u0000'),
        fc.constantFrom('message', 'garbage', 'header'),
        fc.integer({ min: 4096, max: 256 * 1024 }),
        async (length, unit, where, chunkSize) => {
          const blob = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
          const header =
            where === 'header'
              ? JSON.stringify({ type: 'session', version: 3, id: 'long', timestamp: 't', cwd: '/tmp', note: blob })
              : HEADER;
          const lines = [
            header,
            JSON.stringify({
              type: 'message',
              id: 'u1',
              parentId: null,
              timestamp: 't',
              message: { role: 'user', content: 'hi', timestamp: 1 },
            }),
          ];
          if (where === 'message')
            lines.push(
              JSON.stringify({
                type: 'message',
                id: 'a1',
                parentId: 'u1',
                timestamp: 't',
                message: { role: 'assistant', content: [{ type: 'text', text: blob }], timestamp: 2 },
              }),
            );
          if (where === 'garbage') lines.push(blob);
          const file = path.join(dir, `long-${n++}.jsonl`);
          await fsp.writeFile(file, lines.join('\n') + '\n');
          const full = await loadedSession(file, { validation: 'full' });
          const streamed = (await streamedSession(file, { chunkSize }))!;
          assert.equal(streamed.leafId, full.leafId);
          assert.equal(streamed.entryCount, full.entryCount);
          assert.deepEqual(
            streamed.diagnostics.map((d) => d.line),
            full.diagnostics.map((d) => d.line),
          );
          if (where === 'message')
            assert.equal(JSON.stringify(streamed.entry(streamed.indexOf('a1'))), JSON.stringify(full.entry(full.indexOf('a1'))));
          const before = await fsp.readFile(file);
          const [mine] = await appendEntries(streamed, [
            { type: 'custom', customType: 'after-long', data: { blob: blob.slice(0, 100_000) } },
          ]);
          const after = await fsp.readFile(file);
          assert.ok(after.subarray(0, before.length).equals(before));
          assert.equal((await loadedSession(file, { validation: 'fast' })).leafId, mine.id);
        },
      ),
      { numRuns: 12 },
    );
  });
});
