/**
 * Issue 32 item 8: a retention check that tells right from wrong. Its facts hold results and statuses, read by the
 * check's own reader (not the offline summarizer's extraction); it reports what a summary states that the span
 * contradicts beside what it leaves out; a span it cannot check says why; a Pi 0.73 branch summary (fromId = the
 * branch point) is checked against the branch it left. Sessions: test/fixtures/retention/results-session.jsonl (one
 * span, five compaction entries summarizing it: a right summary and four wrong ones), cannot-check-session.jsonl,
 * pi073-ambiguous-session.jsonl, and Pi's own 03-tree (written by Pi 0.73.1).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadSession } from '../../../../src/engine/session/loadSession';
import type { SessionIndex } from '../../../../src/engine/session/sessionIndex';
import { summarizedBranch } from '../../../../src/engine/branch/summarizedBranch';
import type { SpanReading } from '../../../../src/engine/summarize/spanReading';
import {
  checkRetention,
  deriveFacts,
  entrySource,
  putBack,
  readFacts,
  type FactSource,
  type RetentionReport,
  type SpanFacts,
} from '../../../../src/engine/summarize/retention';
import { findContradictions, testClaim } from '../../../../src/engine/summarize/retention/contradictions';
import { NumberSet, numbersOf } from '../../../../src/engine/summarize/retention/text';
import { isNoMatchExit, testOutcome } from '../../../../src/engine/summarize/retention/shell';
import { fixturePath, repoRoot } from '../../../support/fixtures';

const RESULTS = fixturePath('retention', 'results-session.jsonl');
const CANNOT = fixturePath('retention', 'cannot-check-session.jsonl');
const AMBIGUOUS = fixturePath('retention', 'pi073-ambiguous-session.jsonl');
const TREE = fixturePath('pi-oracle', 'fixtures', '03-tree.jsonl');

/** What `arbor check-summary` reads: the entry's span, its facts, the report of its text. */
async function checked(
  file: string,
  entryId: string,
): Promise<{ index: SessionIndex; source: FactSource; facts: SpanFacts; report: RetentionReport }> {
  const index = await loadSession(file);
  await index.load(Array.from({ length: index.entryCount }, (_, k) => k));
  const i = index.indexOf(entryId);
  assert.ok(i >= 0, entryId);
  const source = entrySource(index, i);
  const facts = deriveFacts(source);
  const summary = String((index.entry(i) as { summary?: unknown }).summary ?? '');
  return { index, source, facts, report: checkRetention(summary, facts, { cwd: index.header.cwd }) };
}

const kinds = (r: RetentionReport) => r.contradictions.map((c) => c.kind);

describe('retention check: results and statuses are facts, read by the check itself', () => {
  it('a right summary keeps every fact of the span and states nothing the span contradicts', async () => {
    const { facts, report } = await checked(RESULTS, 's0000020');
    assert.equal(report.cannotCheck, null);
    assert.deepEqual(report.missing, [], JSON.stringify(report.missing));
    assert.deepEqual(report.contradictions, []);
    assert.ok(facts.facts.length >= 10, `${facts.facts.length} facts`);
  });

  it('a summary replaced by two sentences of file names does not keep its facts: results and statuses are missing', async () => {
    const { report } = await checked(RESULTS, 's0000021');
    const missing = new Set(report.missing.map((f) => f.kind));
    assert.ok(missing.has('result') && missing.has('status') && missing.has('error'), [...missing].join(', '));
    assert.ok(report.kept.length < report.kept.length + report.missing.length);
    // The names it does hold are still kept.
    assert.ok(report.kept.some((f) => f.kind === 'file' && f.text === 'src/checkout.ts'));
  });

  it('a summary edited to say the change was reverted and 2 of 5 specs fail reports both contradictions, with the evidence', async () => {
    const { report } = await checked(RESULTS, 's0000022');
    assert.deepEqual(kinds(report), ['reverted', 'testsStatus']);
    const [reverted, tests] = report.contradictions;
    assert.match(reverted.summary, /the discount change was reverted/);
    assert.match(reverted.evidence, /no message of the span reverts/);
    assert.equal(reverted.entryId, null);
    assert.match(tests.summary, /2 of 5 specs fail/);
    assert.match(tests.evidence, /last run of `npx jasmine` passed: 5 specs, 0 failures/);
    assert.equal(tests.entryId, 's0000010', 'the run that passed');
  });

  it('a resolved error stated as blocked is a contradiction (the span retried the edit with success)', async () => {
    const { report } = await checked(RESULTS, 's0000023');
    assert.deepEqual(kinds(report), ['resolvedAsOpen']);
    const c = report.contradictions[0];
    assert.match(c.summary, /Could not find the exact text in src\/checkout\.ts/);
    assert.match(c.evidence, /a later call on the same target succeeded/);
    assert.equal(c.entryId, 's0000004', 'the failed call');
  });

  it('a number no text of the span holds is reported; numbers the span holds, list numbering and counts are not', async () => {
    const { report } = await checked(RESULTS, 's0000024');
    assert.deepEqual(kinds(report), ['unsupportedNumber']);
    assert.match(report.contradictions[0].summary, /east 975/);
    assert.match(report.contradictions[0].evidence, /"975"/);
    const { facts } = await checked(RESULTS, 's0000020');
    const own = findContradictions(
      '1. Done\n2. Kept 12 tokens and 3 more items\n- 1250 and 830\n- On 2026-12-01 at 10:05',
      facts.evidence,
      '',
    );
    assert.deepEqual(own, []);
  });

  it('a refused, a cut-off and an aborted request each have their status as a fact, from the message that stopped', async () => {
    const { facts } = await checked(RESULTS, 's0000020');
    const statuses = facts.facts.filter((f) => f.kind === 'status').map((f) => [f.status, f.entryId, f.subject]);
    assert.deepEqual(statuses, [
      ['refused', 's0000017', 'Write a limerick that insults our competitor.'],
      ['cutOff', 's0000019', 'Then list every SKU in data/skus.csv with its price.'],
      ['aborted', 's000001b', 'Explain the rounding rules in detail.'],
    ]);
    assert.match(facts.facts.find((f) => f.status === 'refused')!.text, /^Refused \(Provider finish_reason: content_filter\): /);
  });

  it('results: the numbers and short sentences of the answers, and the short output an answer points at', async () => {
    const { facts } = await checked(RESULTS, 's0000020');
    const results = facts.facts.filter((f) => f.kind === 'result');
    assert.ok(results.some((f) => f.text.includes('`checkout(100)` now returns 90') && f.entryId === 's0000011'));
    assert.ok(
      results.some((f) => f.text === 'north 1250 south 830 west 415' && f.entryId === 's0000015'),
      '"Those are the totals per region." points at the output above it',
    );
    assert.ok(!results.some((f) => /welcome/i.test(f.text)), 'the pleasantry turn has no result');
  });

  it('grep exiting 1 with no output found nothing: not an error; a failed write modified nothing: not a modified file', async () => {
    const { source, facts } = await checked(RESULTS, 's0000020');
    const errors = facts.facts.filter((f) => f.kind === 'error').map((f) => f.text);
    assert.deepEqual(errors, ["EACCES: permission denied, open 'src/legacy.ts'"], 'the failed write is open: its answer reports it');
    assert.ok(!facts.facts.some((f) => /grep|legacyTotal|exited with code/.test(f.text)));
    assert.deepEqual((source.messages as SpanReading).facts.failedWrites, ['src/legacy.ts'], 'the write was tried, and failed');
    const files = facts.facts.filter((f) => f.kind === 'file').map((f) => f.text);
    assert.deepEqual(files.sort(), ['spec/checkout.spec.ts', 'src/checkout.ts']);
    assert.ok(isNoMatchExit('grep -rn legacyTotal src', 1, '(no output)\n\nCommand exited with code 1'));
    assert.ok(!isNoMatchExit('grep -rn legacyTotal src', 2, '(no output)\n\nCommand exited with code 2'));
    assert.ok(!isNoMatchExit('npm test', 1, '(no output)\n\nCommand exited with code 1'));
    assert.ok(!isNoMatchExit('grep -c x a.txt', 1, 'grep: a.txt: No such file or directory\n\nCommand exited with code 1'));
  });

  it('the check applies to any text (an edit in the panel): put back restores what it can and keeps the contradictions', async () => {
    const { facts } = await checked(RESULTS, 's0000020');
    const edited = '## Goal\n- Discount\n\nThe discount change was reverted.';
    const before = checkRetention(edited, facts);
    assert.deepEqual(kinds(before), ['reverted']);
    const restored = putBack(edited, before.missing);
    const after = checkRetention(restored, facts);
    assert.ok(
      after.missing.every((f) => !['constraint', 'request', 'pin', 'file'].includes(f.kind)),
      JSON.stringify(after.missing),
    );
    assert.deepEqual(kinds(after), ['reverted']);
  });
});

describe('retention check: what a summary states about tests', () => {
  it('claims are read from prose, not from commands, paths or intentions', () => {
    assert.equal(testClaim('2 of 5 specs fail.'), 'fail');
    assert.equal(testClaim('All 4 tests pass.'), 'pass');
    assert.equal(testClaim('Tests: 5 passed, 0 failed.'), 'pass');
    assert.equal(testClaim('The specs do not pass.'), 'fail');
    assert.equal(testClaim('Ran `node --test test/ | grep -E "^# (tests|pass|fail)"`.'), null);
    assert.equal(testClaim('The edit of test/math.test.js failed.'), null);
    assert.equal(testClaim('Make the failing tests pass.'), null);
    assert.equal(testClaim('Fixed the failing test.'), null);
  });

  it('a run passes or fails by its counts first, then by its exit status', () => {
    assert.deepEqual(testOutcome('npx jasmine', '5 specs, 2 failures', true)?.passed, false);
    assert.deepEqual(testOutcome('node --test test/ | grep fail', '# tests 3\n# pass 3\n# fail 0', false)?.passed, true);
    assert.equal(testOutcome('npm test | tail -1', '', false), null, 'a pipe hides the status');
    assert.equal(testOutcome('npm test', 'Command exited with code 1', true)?.passed, false);
  });
});

describe('retention check: a span it cannot check says why, never "0 of 0"', () => {
  for (const [entryId, why] of [
    ['k0000006', /holds only pleasantries/],
    ['k0000007', /holds no messages/],
    ['k0000008', /has no parent entry/],
    ['k0000009', /its fromId "zzzzzzzz" is not an entry of this file/],
  ] as const) {
    it(`${entryId}: ${why.source}`, async () => {
      const { report } = await checked(CANNOT, entryId);
      assert.match(String(report.cannotCheck), why);
      assert.deepEqual([report.kept, report.missing, report.contradictions], [[], [], []]);
    });
  }

  it("another agent's session (Claude Code) and an ambiguous Pi 0.73 branch summary", async () => {
    const foreign = await checked(fixturePath('agents', 'claude-code-session.jsonl'), 'c-0001');
    assert.match(String(foreign.report.cannotCheck), /a Claude Code session/);
    const ambiguous = await checked(AMBIGUOUS, 'b0000008');
    assert.match(String(ambiguous.report.cannotCheck), /Pi 0\.73 wrote the branch point b0000002 as its fromId, and 2 branches/);
  });
});

describe('retention check: a Pi 0.73 branch summary is checked against its real branch', () => {
  it('03-tree (written by Pi 0.73.1): fromId is the branch point; the branch left is found in the tree', async () => {
    for (const [entryId, branchPoint, leaf] of [
      ['b0d9510b', '088cfc63', 'a9dae875'],
      ['6bc1493a', '85a64b5b', '55f6a1d0'],
    ]) {
      const { index, source, facts, report } = await checked(TREE, entryId);
      const i = index.indexOf(entryId);
      assert.equal(index.entryOfType(i, 'branch_summary')?.fromId, branchPoint);
      const b = summarizedBranch(index, i);
      assert.equal(b.fromBranchPoint, true);
      assert.equal(index.record(b.leafIndex).id, leaf);
      assert.equal(b.entries[b.entries.length - 1], b.leafIndex);
      const read = (source.messages as { length: number }).length;
      assert.ok(read > 3, `${entryId}: ${read} messages read`);
      assert.equal(report.cannotCheck, null);
      assert.ok(report.kept.length + report.missing.length > 0, `${entryId}: a real count`);
      assert.ok(
        report.kept.some((f) => f.kind === 'file' && f.text === 'src/math.js'),
        entryId,
      );
      assert.match(String(facts.note), new RegExp(`left from ${leaf}`));
    }
  });

  it("a Pi 1.6 branch summary's fromId is its leaf, as it was", async () => {
    const index = await loadSession(fixturePath('pi-oracle', 'fixtures-pi16', '01-pi16.jsonl'));
    const b = summarizedBranch(index, index.indexOf('3e48cc64'));
    assert.equal(b.fromBranchPoint, false);
    assert.equal(index.record(b.leafIndex).id, index.entryOfType(index.indexOf('3e48cc64'), 'branch_summary')?.fromId);
  });
});

describe('retention check: independent, bounded, linear', () => {
  it("the facts are read by the check's own reader: nothing in retention/ imports the offline summarizer", () => {
    const dir = path.join(repoRoot, 'src', 'engine', 'summarize', 'retention');
    for (const f of fs.readdirSync(dir)) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      assert.ok(!/from '\.\.\/offline\//.test(text) && !/providers\/offline/.test(text), `${f} imports the offline summarizer`);
    }
  });

  it('numbers: canonical forms, not glued to words; the set stays bounded past 65 536 of them', () => {
    assert.deepEqual(numbersOf('1,024 rows, 12.50 GBP, v1.6, Pi 1.6.0, 3eb4b5d1, 16x16, 200ms, x86, (4, 3) -10'), [
      '1024',
      '12.5',
      '1.6.0',
      '200',
      '4',
      '3',
      '10',
    ]);
    const big = new NumberSet();
    for (let k = 0; k < 70_000; k++) big.add(String(k));
    for (const k of [0, 1234, 69_999]) assert.ok(big.has(String(k)));
    let falsePositives = 0;
    for (let k = 100_000; k < 110_000; k++) if (big.has(String(k))) falsePositives++;
    assert.ok(falsePositives < 100, `${falsePositives} false positives in 10 000`);
  });

  it('hostile text: a megabyte unbroken summary with escape sequences, and a span of long outputs, are checked quickly', () => {
    const outputs = Array.from({ length: 20 }, (_, k) => ({
      entryId: `h${k}`,
      message:
        k % 2 === 0
          ? {
              role: 'assistant',
              content: [{ type: 'toolCall', id: `t${k}`, name: 'bash', arguments: { command: 'npm test' } }],
              stopReason: 'toolUse',
            }
          : {
              role: 'toolResult',
              toolCallId: `t${k - 1}`,
              toolName: 'bash',
              content: [{ type: 'text', text: `${'9'.repeat(1 << 16)} \u001b[31m${'x1 '.repeat(1 << 15)}` }],
              isError: true,
            },
    })) as never;
    const t0 = Date.now();
    const facts = deriveFacts({ messages: outputs });
    const summary = `${'\u001b[2J'.repeat(1000)}${'reverted 2 of 5 tests fail 1234 '.repeat(1 << 15)}${'a'.repeat(1 << 20)}`;
    const a = checkRetention(summary, facts);
    const b = checkRetention(summary, facts);
    assert.deepEqual(a, b);
    assert.ok(Date.now() - t0 < 20_000, `${Date.now() - t0} ms`);
    assert.ok(a.contradictions.length <= 40);
    assert.ok(readFacts([]).messages === 0);
  });
});
