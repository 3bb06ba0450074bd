import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { countTextTokens, MAX_COUNTED_CHARS, MAX_PIECE } from '../../../src/engine/tokens/countText';
import { countTokens, tokenizerEstimator, charsEstimator, type TokenEstimator } from '../../../src/engine/tokens/estimators';
import { entryTokens, estimateFromBytes, projectedEntryTokens } from '../../../src/engine/context/entryTokens';
import { MAX_PARSED_ENTRY_BYTES } from '../../../src/engine/session/entryLimits';
import { loadSession } from '../../../src/engine/session/loadSession';
import { Projection } from '../../../src/engine/context/projection';
import { planCompaction } from '../../../src/engine/compaction/planCompaction';
import { DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';
import { oracleCases } from '../../support/fixtures';
import { base64Blob, bestTime, fill, scalesLinearly } from '../../support/hostileText';
import { referenceCount, referenceEncodeStrict } from '../../support/referenceTokenizer';
import { O200K_PRE_TOKEN } from '../../../src/engine/tokens/preTokens';

// OpenAI's reference tokenizer is the oracle.
const exact = referenceCount;
const preTokenPattern = new RegExp(O200K_PRE_TOKEN.source, 'gv');

/** Deterministic hostile texts of n characters. */
const hostile: Record<string, (n: number) => string> = {
  base64: base64Blob,
  equals: (n) => '='.repeat(n),
  letters: (n) => 'a'.repeat(n),
  spaces: (n) => ' '.repeat(n),
  slashNewlines: (n) => `!${'/\n'.repeat(n / 2)}`.slice(0, n),
  minifiedJs: (n) => fill('function(a,b){return a+b};var x=[1,2,3].map(function(y){return y*2});', n),
  cjk: (n) => fill('漢字テキスト', n),
  emoji: (n) => '😀'.repeat(Math.ceil(n / 2)).slice(0, n - (n % 2)),
};

function longestPreToken(text: string): number {
  let longest = 0;
  for (const [m] of text.matchAll(preTokenPattern)) if (m.length > longest) longest = m.length;
  return longest;
}

describe('token counting is linear on any text (issue 13 item 1)', () => {
  it('counts ordinary text exactly as one tokenizer call does (real session messages)', () => {
    let texts = 0;
    for (const c of oracleCases().slice(0, 6)) {
      for (const line of readFileSync(c.sessionFile, 'utf8').split('\n')) {
        if (!line.includes('"text":"')) continue;
        for (const [, raw] of line.matchAll(/"text":"((?:[^"\\]|\\.)*)"/g)) {
          const text = JSON.parse(`"${raw}"`) as string;
          if (text.length < 20) continue;
          texts++;
          assert.equal(countTokens(text), exact(text), text.slice(0, 80));
        }
      }
    }
    assert.ok(texts > 20, `checked ${texts} texts`);
    const prose = 'The quick brown fox jumps over the lazy dog, again and again.\n\tIndented code: foo(bar) // baz\n'.repeat(400);
    assert.equal(countTokens(prose), exact(prose));
  });

  it('counts special-token text like <|endoftext|> as text instead of throwing', () => {
    const text = 'before <|endoftext|> <|im_start|>system after';
    assert.throws(() => referenceEncodeStrict(text), 'the reference refuses it by default');
    assert.equal(countTokens(text), exact(text));
    assert.ok(tokenizerEstimator.estimate({ role: 'user', content: text, timestamp: 0 }) > 5);
  });

  it('never hands the tokenizer a pre-token longer than MAX_PIECE + 1, and hands it every character once', () => {
    const unit = fc.oneof(
      fc.constantFrom('a', 'A', '=', ' ', '\n', '/', '\t', '😀', '漢', '1', '<|endoftext|>', '\r\n', '\u3000'),
      fc.string({ maxLength: 3 }),
    );
    const text = fc.array(fc.tuple(unit, fc.nat(400)), { maxLength: 8 }).map((runs) => runs.map(([u, k]) => u.repeat(k)).join(''));
    fc.assert(
      fc.property(text, (t) => {
        const pieces: string[] = [];
        countTextTokens(t, (p) => {
          pieces.push(p);
          return 1;
        });
        assert.equal(pieces.join(''), t);
        for (const p of pieces) assert.ok(longestPreToken(p) <= MAX_PIECE + 1, `a pre-token of ${longestPreToken(p)} characters`);
        for (const p of pieces) assert.ok(!/^[\udc00-\udfff]/.test(p) && !/[\ud800-\udbff]$/.test(p), 'no piece cuts a surrogate pair');
      }),
      { numRuns: 300 },
    );
  });

  for (const [name, make] of Object.entries(hostile)) {
    it(`${name}: close to the exact count, and 8x the input costs well under 30x the time`, function () {
      const small = make(16_000);
      const want = exact(small);
      const got = countTokens(small);
      assert.ok(Math.abs(got - want) <= Math.max(2, want * 0.1), `${got} vs exact ${want}`);
      scalesLinearly(() => {
        const t1 = bestTime(() => countTokens(make(64 * 1024)));
        const t8 = bestTime(() => countTokens(make(512 * 1024)));
        // (a floor of 20 ms under the small case: a quadratic count of 512 KB takes minutes, not a second)
        return t8 < 30 * Math.max(t1, 20) ? undefined : `64 KB: ${t1.toFixed(1)} ms, 512 KB: ${t8.toFixed(1)} ms`;
      });
    });
  }

  it('past MAX_COUNTED_CHARS, tokenizes a head and tail sample only and scales the count to the length', () => {
    const text = 'word '.repeat(Math.ceil((MAX_COUNTED_CHARS * 3) / 5));
    let handed = 0;
    const n = countTextTokens(text, (p) => {
      handed += p.length;
      return exact(p);
    });
    assert.ok(handed <= MAX_COUNTED_CHARS + 2, `${handed} characters tokenized`);
    const perWord = exact('word '.repeat(1000)) / 1000;
    assert.ok(Math.abs(n - perWord * (text.length / 5)) / n < 0.01, `${n}`);
  });
});

describe('one per-entry token counter, cached in the index (issue 11 items 3 and 7)', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-tokens-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const header = { type: 'session', version: 3, id: 'tok', timestamp: '2026-01-01T00:00:00Z', cwd: '/w' };
  const msg = (id: string, parentId: string | null, role: string, text: string) =>
    role === 'assistant'
      ? {
          type: 'message',
          id,
          parentId,
          timestamp: '2026-01-01T00:00:01Z',
          message: {
            role,
            content: [{ type: 'text', text }],
            stopReason: 'stop',
            usage: { input: 900, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1000 },
            timestamp: 1,
          },
        }
      : {
          type: 'message',
          id,
          parentId,
          timestamp: '2026-01-01T00:00:01Z',
          message: { role, content: [{ type: 'text', text }], timestamp: 1 },
        };

  function spy(base: TokenEstimator): TokenEstimator & { calls: number } {
    const s = { name: base.name, calls: 0, estimate: (m: Parameters<TokenEstimator['estimate']>[0]) => (s.calls++, base.estimate(m)) };
    return s;
  }

  it('counts an entry once per index and estimator; plans and rows share the counts', async () => {
    const file = path.join(dir, 'small.jsonl');
    const lines = [header];
    let parent: string | null = null;
    for (let i = 0; i < 40; i++) {
      const id = `e${i}`;
      lines.push(msg(id, parent, i % 2 ? 'assistant' : 'user', `message ${i} `.repeat(200)) as never);
      parent = id;
    }
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const index = await loadSession(file);
    const est = spy(charsEstimator);
    const settings = { ...DEFAULT_PI_SETTINGS.compaction, keepRecentTokens: 2000 };
    planCompaction(index, { settings, estimator: est });
    const afterPlan = est.calls;
    const counted = index.tokenCounts.get('chars')!;
    assert.ok(counted.size > 0 && counted.size < 40, `the plan counted ${counted.size} of 40 entries (its keep-recent window)`);
    planCompaction(index, { settings, estimator: est });
    for (const i of counted.keys()) entryTokens(index, i, 'chars');
    assert.equal(est.calls, afterPlan, 'a second plan and the rows count nothing again');
    const p = new Projection(index, index.leafIndex);
    assert.equal(projectedEntryTokens(p, p.length - 1, est), entryTokens(index, index.leafIndex, charsEstimator));
  });

  it('a line past MAX_PARSED_ENTRY_BYTES is never parsed: estimated from its bytes, shown empty, reported', async () => {
    const file = path.join(dir, 'huge.jsonl');
    const blob = 'QUJD'.repeat(Math.ceil((MAX_PARSED_ENTRY_BYTES + 1024) / 4));
    const lines = [header, msg('u1', null, 'user', 'hello'), msg('big', 'u1', 'user', blob), msg('a1', 'big', 'assistant', 'done')];
    // A huge line not in Pi's key order cannot be indexed without parsing it: skipped with a diagnostic.
    const reordered = { parentId: 'a1', id: 'odd', type: 'message', timestamp: 'x', message: { role: 'user', content: blob } };
    writeFileSync(file, [...lines, reordered].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const index = await loadSession(file);
    assert.deepEqual(
      [...Array(index.entryCount).keys()].map((i) => index.record(i).id),
      ['u1', 'big', 'a1'],
    );
    assert.ok(
      index.diagnostics.some((d) => d.line === 5 && /MB, larger than the 16 MB Arbor parses; line skipped/.test(d.message)),
      JSON.stringify(index.diagnostics),
    );
    const big = index.indexOf('big');
    const bytes = index.record(big).end - index.record(big).start;
    const est = spy(tokenizerEstimator);
    assert.equal(entryTokens(index, big, est), estimateFromBytes(bytes));
    assert.equal(est.calls, 0, 'not tokenized');
    const entry = index.entry(big) as { message: { content: unknown[] } };
    assert.deepEqual(entry.message.content, []);
    assert.ok(index.diagnostics.some((d) => d.line === 3 && /content ignored/.test(d.message)));
  });
});
