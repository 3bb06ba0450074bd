/**
 * Fuzzing the loader, planner and writer with malformed files: invalid JSON,
 * cut-off last lines, BOM, CRLF, duplicate ids, cycles, orphans, children
 * before parents, bytes that are not UTF-8, fields of the wrong type. Never a
 * crash or a hang; diagnostics name file and line; planning works on the valid
 * part; appending after a cut-off line corrupts nothing.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionArb, renderSession } from '../../support/arbSession';
import { indexSessionBuffer, loadSession } from '../../../src/engine/session/loadSession';
import { SessionFormatError } from '../../../src/engine/session/diagnostics';
import { planCompaction } from '../../../src/engine/compaction/planCompaction';
import { planBranch } from '../../../src/engine/branch/planBranch';
import { buildContext } from '../../../src/engine/context/buildContext';
import { charsEstimator } from '../../../src/engine/tokens/estimators';
import { appendEntries } from '../../../src/engine/session/writer';

type Mutation =
  | { kind: 'garbage'; at: number; text: string }
  | { kind: 'cut'; keep: number }
  | { kind: 'bom' }
  | { kind: 'crlf' }
  | { kind: 'dupId'; at: number; from: number }
  | { kind: 'reparent'; at: number; to: number }
  | { kind: 'orphan'; at: number }
  | { kind: 'swap'; at: number }
  | { kind: 'badBytes'; at: number }
  | { kind: 'wrongType'; at: number; field: 'id' | 'parentId' | 'message' | 'content' | 'role' | 'summary' | 'usage'; value: unknown };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('garbage' as const), at: fc.nat(), text: fc.oneof(fc.string(), fc.constantFrom('{', '{"type":', '[]', 'null', '{"type":"message"}', '{"type":"message","id":"x","parentId":null}')) }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat({ max: 200 }) }),
  fc.constant({ kind: 'bom' as const }),
  fc.constant({ kind: 'crlf' as const }),
  fc.record({ kind: fc.constant('dupId' as const), at: fc.nat(), from: fc.nat() }),
  fc.record({ kind: fc.constant('reparent' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('orphan' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('badBytes' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('wrongType' as const),
    at: fc.nat(),
    field: fc.constantFrom('id', 'parentId', 'message', 'content', 'role', 'summary', 'usage') as fc.Arbitrary<'id'>,
    value: fc.oneof(fc.integer(), fc.constant(null), fc.constant([]), fc.constant({}), fc.string(), fc.boolean()),
  }),
);

function mutate(text: string, mutations: Mutation[]): Buffer {
  let lines = text.trimEnd().split('\n');
  let cutTail = -1;
  let bom = false;
  let crlf = false;
  for (const m of mutations) {
    const n = lines.length;
    const pick = (k: number) => 1 + (k % Math.max(1, n - 1)); // never the header
    if (n < 2 && m.kind !== 'bom' && m.kind !== 'crlf' && m.kind !== 'garbage') continue;
    switch (m.kind) {
      case 'garbage':
        lines.splice(pick(m.at), 0, m.text.replace(/\n/g, ' '));
        break;
      case 'cut':
        cutTail = m.keep;
        break;
      case 'bom':
        bom = true;
        break;
      case 'crlf':
        crlf = true;
        break;
      case 'dupId':
      case 'reparent':
      case 'orphan':
      case 'wrongType': {
        const i = pick(m.at);
        let e: Record<string, any>;
        try {
          e = JSON.parse(lines[i]);
        } catch {
          break;
        }
        if (typeof e !== 'object' || e === null || Array.isArray(e)) break;
        if (m.kind === 'dupId') {
          try {
            e.id = JSON.parse(lines[pick(m.from)])?.id;
          } catch {
            /* the other line is garbage */
          }
        } else if (m.kind === 'reparent') {
          try {
            e.parentId = JSON.parse(lines[pick(m.to)])?.id; // may create a cycle
          } catch {
            /* garbage */
          }
        } else if (m.kind === 'orphan') e.parentId = 'ffffffff';
        else if (m.field === 'content' || m.field === 'role' || m.field === 'usage') {
          if (e.message && typeof e.message === 'object') e.message[m.field] = m.value;
        } else e[m.field] = m.value;
        lines[i] = JSON.stringify(e);
        break;
      }
      case 'swap': {
        const i = pick(m.at);
        if (i + 1 < n) [lines[i], lines[i + 1]] = [lines[i + 1], lines[i]];
        break;
      }
      case 'badBytes':
        break;
    }
  }
  lines = lines.map((l) => l);
  let out = lines.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n');
  if (cutTail >= 0 && lines.length > 1) out = out.slice(0, Math.max(out.length - 1 - cutTail, out.lastIndexOf('\n', out.length - 2) + 1));
  let buf = Buffer.from(out, 'utf8');
  const bad = mutations.find((m): m is Extract<Mutation, { kind: 'badBytes' }> => m.kind === 'badBytes');
  if (bad && buf.length > 200) {
    const at = 150 + (bad.at % (buf.length - 160));
    buf = Buffer.concat([buf.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), buf.subarray(at)]);
  }
  if (bom) buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
  return buf;
}

function exercise(buf: Buffer, validation: 'full' | 'fast') {
  let index;
  try {
    index = indexSessionBuffer('fuzz.jsonl', buf, { validation });
  } catch (err) {
    assert.ok(err instanceof SessionFormatError, `only a bad header may stop loading: ${String(err)}`);
    assert.match((err as Error).message, /^fuzz\.jsonl:\d+: /);
    return undefined;
  }
  for (const d of index.diagnostics) {
    assert.equal(d.file, 'fuzz.jsonl');
    assert.ok(Number.isInteger(d.line) && d.line >= 1);
  }
  const ctx = buildContext(index);
  assert.ok(Array.isArray(ctx.messages));
  for (const keep of [1, 200, 5000]) {
    const plan = planCompaction(index, { settings: { enabled: true, reserveTokens: 100, keepRecentTokens: keep }, estimator: charsEstimator });
    assert.ok(plan.kind === 'plan' || plan.kind === 'nothing');
    if (plan.kind === 'plan') assert.notEqual(index.record(index.indexOf(plan.firstKeptEntryId)).role, 'toolResult');
  }
  if (index.entryCount > 1) {
    const target = index.record(Math.floor(index.entryCount / 2)).id;
    const b = planBranch(index, { targetId: target, budget: 500, estimator: charsEstimator });
    assert.ok(b.entryIndexes.length <= index.entryCount);
  }
  return index;
}

describe('fuzz: malformed session files', function () {
  this.timeout(120000);
  it('loader, context and planners never crash or hang (2000 cases per indexing mode)', () => {
    fc.assert(
      fc.property(sessionArb, fc.array(mutationArb, { minLength: 1, maxLength: 6 }), (steps, mutations) => {
        const buf = mutate(renderSession(steps), mutations);
        exercise(buf, 'full');
        exercise(buf, 'fast');
      }),
      { numRuns: 2000 },
    );
  });

  it('appending after damage starts a new line, keeps every existing byte, and reloads', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-fuzz-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.array(mutationArb, { minLength: 1, maxLength: 4 }), async (steps, mutations) => {
        const buf = mutate(renderSession(steps), mutations);
        const file = path.join(dir, `f${n++}.jsonl`);
        await fsp.writeFile(file, buf);
        let index;
        try {
          index = await loadSession(file);
        } catch (err) {
          assert.ok(err instanceof SessionFormatError);
          return;
        }
        const [e] = await appendEntries(index, [{ type: 'custom', customType: 'fuzz-append' }]);
        const after = await fsp.readFile(file);
        assert.deepEqual(after.subarray(0, buf.length), buf);
        const reloaded = await loadSession(file);
        assert.equal(reloaded.leafId, e.id);
        assert.ok(reloaded.entryCount >= index.entryCount);
      }),
      { numRuns: 300 },
    );
  });

  it('a 10 MB line loads and plans', () => {
    const big = 'y'.repeat(10 * 1024 * 1024);
    const text = renderSession([{ kind: 'user', text: 'hi' }]) + JSON.stringify({ type: 'message', id: 'big00001', parentId: '00000001', timestamp: 't', message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text: big }], isError: false } }) + '\n';
    for (const validation of ['full', 'fast'] as const) {
      const index = exercise(Buffer.from(text), validation)!;
      assert.equal(index.leafId, 'big00001');
    }
  });
});
