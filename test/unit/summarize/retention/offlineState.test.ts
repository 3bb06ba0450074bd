/**
 * Issue 19 item 2-3: the offline summarizer states the session right, on the
 * sessions that showed each defect (the demo workspace's sessions as the
 * demo builds them, the bundled sample, and generated ones).
 */
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { proposeCompaction } from '../../../../src/engine/operations/compact';
import { navigateSession, proposeNavigation } from '../../../../src/engine/operations/navigate';
import { createOfflineSummarizer } from '../../../../src/engine/summarize/providers/offline';
import { parseSummary } from '../../../../src/engine/summarize/parseSummary';
import { DEFAULT_PI_SETTINGS } from '../../../../src/engine/settings/piSettings';
import { fixturePath, repoRoot } from '../../../support/fixtures';

const offline = createOfflineSummarizer();
/** The demo workspace's session with an old checkpoint ("Error seen", an unfinished CHANGELOG request) and a branch ending in thanks. */
const WORKSPACE_MUL = fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-36-32-277Z_01a228cf-1f14-7375-95f5-91ee6b4355fc.jsonl');
const SAMPLE = path.join(repoRoot, 'samples', 'sample-session.jsonl');
const RETRY = fixturePath('retention', 'retry-session.jsonl');
const FOCUS = fixturePath('retention', 'focus-session.jsonl');

async function copy(src: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-offline-state-'));
  const file = path.join(dir, 'session.jsonl');
  await fsp.copyFile(src, file);
  return file;
}

async function compact(file: string, keepRecentTokens: number, customInstructions?: string, summarizer = offline) {
  const p = await proposeCompaction({
    file,
    summarizer,
    estimator: 'chars',
    piSettings: DEFAULT_PI_SETTINGS,
    compaction: { keepRecentTokens },
    customInstructions,
  });
  assert.equal(p.kind, 'proposal');
  if (p.kind !== 'proposal') throw new Error('unreachable');
  return { ...p, parsed: parseSummary(p.summary) };
}

describe('offline summarizer state (issue 19)', () => {
  it('a failed edit fixed by a retry (the retry names the file by its absolute path) is neither Blocked nor an unresolved error', async () => {
    const p = await compact(RETRY, 10);
    assert.deepEqual(p.parsed.blocked, [], p.summary);
    assert.ok(!p.summary.includes('Unresolved error'), p.summary);
    assert.ok(!p.summary.includes('Could not find the exact text'), p.summary);
    assert.ok(p.parsed.criticalContext.includes('Modified files: `src/math.js`'), 'one path, relative to the cwd');
    assert.deepEqual(p.retention.missing, []);
  });

  it('a finished request is Done only, with the facts of the answer and not its padding', async () => {
    const p = await compact(RETRY, 10);
    const done = p.parsed.done.join('\n');
    assert.ok(done.includes('all 4 tests pass'), done);
    assert.ok(!/Sure!|Here it is|Let me know/.test(done), done);
    assert.ok(!p.parsed.inProgress.some((i) => i.includes('`div`')), p.summary);
  });

  it("\"Thanks, that's all.\" is no objective: not in a compaction's Goal, not a branch summary's first goal (the tree's label)", async () => {
    const c = await compact(RETRY, 1);
    assert.ok(!c.parsed.goal.some((g) => /thanks/i.test(g)), c.summary);
    assert.ok(!c.parsed.nextSteps.some((g) => /thanks/i.test(g)), c.summary);
    const n = await proposeNavigation({
      file: WORKSPACE_MUL,
      targetId: 'b9cc43f4',
      summarize: true,
      summarizer: offline,
      piSettings: DEFAULT_PI_SETTINGS,
    });
    assert.equal(n.kind, 'proposal');
    if (n.kind !== 'proposal' || !n.summary) throw new Error('no summary');
    const goal = parseSummary(n.summary.text).goal;
    assert.equal(goal[0], 'Add mul, but as a loop of additions in a new file src/ops.js.', n.summary.text);
    assert.ok(!goal.some((g) => /thanks/i.test(g)));
    assert.deepEqual(n.summary.retention?.missing, []);
  });

  it('a request containing "always" is a goal, not a constraint; the user\'s rule is a constraint', async () => {
    const p = await compact(SAMPLE, 1000);
    assert.deepEqual(
      p.parsed.constraints,
      ['From now on, always run `node --test test/` after you change anything in src/, and never add dependencies to package.json.'],
      p.summary,
    );
    // A finished request is Done (Goal holds the open one), with its result.
    assert.ok(
      p.parsed.done.some((d) => d.startsWith('Add a `mod` function') && d.includes('`mod(-7, 3)` is 2')),
      p.summary,
    );
    assert.ok(p.parsed.goal[0].startsWith('Does formatPercent'), p.summary);
  });

  it('an open request in a split turn is the next step (never "wait for the user") and in progress', async () => {
    const p = await compact(SAMPLE, 1000);
    assert.ok(p.plan.isSplitTurn);
    assert.ok(!p.summary.includes('Wait for the user'), p.summary);
    assert.ok(p.parsed.nextSteps[0].includes('Does formatPercent in src/format.js handle negative numbers?'), p.summary);
    assert.ok(
      p.parsed.inProgress.some((i) => i.includes('Does formatPercent')),
      p.summary,
    );
    assert.ok(p.facts.facts.some((f) => f.kind === 'request' && f.text.startsWith('Does formatPercent')));
    assert.deepEqual(p.retention.missing, []);
  });

  describe('an iterative compaction over an older checkpoint (the demo workspace session)', () => {
    let p: Awaited<ReturnType<typeof compact>>;
    before(async () => {
      // The demo's path: back to the main line, then compact (the earlier checkpoint says "Error seen", has the CHANGELOG request in progress).
      const file = await copy(WORKSPACE_MUL);
      await navigateSession({ file, targetId: 'b9cc43f4', summarize: true, summarizer: offline, piSettings: DEFAULT_PI_SETTINGS });
      p = await compact(file, 100, 'Keep exact file paths.');
    });

    it('an earlier "Error seen" (and its Blocked copy, which a retry fixed) is not an unresolved error now', () => {
      assert.ok(p.plan.previousSummary?.includes('Error seen:'), 'the fixture has the old label');
      assert.deepEqual(p.parsed.blocked, [], p.summary);
      assert.ok(!p.summary.includes('Unresolved error'), p.summary);
    });

    it('the CHANGELOG request the old checkpoint had in progress is done (a Done item wrote the file), not both', () => {
      assert.deepEqual(p.parsed.inProgress, [], p.summary);
      assert.ok(
        p.parsed.done.some((d) => d.includes('CHANGELOG')),
        p.summary,
      );
    });

    it('docs/guide-3.md is read once in Done, with its answer', () => {
      const reads = p.parsed.done.filter((d) => d.toLowerCase().includes('guide-3.md'));
      assert.deepEqual(reads, ['Read docs/guide-3.md: Guide 3 (Precision) discusses rounding and digits.'], p.summary);
    });

    it('the old instructions are not carried as a user constraint; "keep exact paths" lists the paths', () => {
      assert.ok(!p.summary.includes('Summary focus requested'), p.summary);
      assert.ok(
        p.parsed.criticalContext.some((c) => c.startsWith('Paths:') && c.includes('`docs/guide-3.md`')),
        p.summary,
      );
      assert.deepEqual(p.retention.missing, []);
    });
  });

  it('focus terms in the instructions rank the matching items first within the size bound', async () => {
    // A small output budget, so that Done must be cut.
    const small = createOfflineSummarizer({ maxOutputTokens: 260 });
    const plain = await compact(FOCUS, 10, undefined, small);
    const focused = await compact(FOCUS, 10, 'Focus on the tests.', small);
    const tests = (s: string[]) => s.filter((d) => d.includes('.test.js'));
    assert.equal(tests(focused.parsed.done).length, 3, focused.summary);
    assert.ok(tests(plain.parsed.done).length < 3, 'without a focus the oldest test item is cut');
    assert.equal(focused.parsed.done.length, plain.parsed.done.length, 'the same size bound');
    // The bound cuts something; never what the focus asked for.
    assert.ok(!focused.retention.missing.some((f) => /test/i.test(f.text)), JSON.stringify(focused.retention.missing));
  });
});
