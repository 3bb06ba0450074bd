/**
 * Issue 32 items 1-7 on small spans: the offline summarizer reads turns
 * (who started each, how it ended), judges errors by purpose, files every
 * answer under its own request, and replaces an earlier checkpoint's
 * momentary lines, within a size that stays bounded across updates.
 */
import * as assert from 'node:assert/strict';
import { offlineSummaryText } from '../../../src/engine/summarize/providers/offline';
import { buildSummaryRequest } from '../../../src/engine/summarize/prompts';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { extract } from '../../../src/engine/summarize/offline/extract';
import { exitAnswer, statusProgram } from '../../../src/engine/summarize/offline/commandStatus';
import { balanceMarkup } from '../../../src/engine/summarize/offline/turnItems';
import { errorLineOf } from '../../../src/engine/text/lines';
import type { AgentMessage } from '../../../src/engine/session/types';

const user = (text: string): AgentMessage => ({ role: 'user', content: text }) as AgentMessage;
const answer = (text: string, stopReason = 'stop', errorMessage?: string): AgentMessage =>
  ({ role: 'assistant', content: text ? [{ type: 'text', text }] : [], stopReason, errorMessage }) as unknown as AgentMessage;
const call = (id: string, name: string, args: Record<string, unknown>, text = ''): AgentMessage =>
  ({
    role: 'assistant',
    content: [...(text ? [{ type: 'text', text }] : []), { type: 'toolCall', id, name, arguments: args }],
    stopReason: 'toolUse',
  }) as unknown as AgentMessage;
const result = (id: string, name: string, text: string, isError = false): AgentMessage =>
  ({ role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text }], isError }) as unknown as AgentMessage;
const custom = (customType: string, text: string): AgentMessage =>
  ({ role: 'custom', customType, content: text, display: false }) as unknown as AgentMessage;
const bash = (command: string, output: string, exitCode = 0): AgentMessage =>
  ({ role: 'bashExecution', command, output, exitCode, cancelled: false, truncated: false }) as unknown as AgentMessage;

function summary(messages: AgentMessage[], extra: Partial<Parameters<typeof buildSummaryRequest>[0]> = {}) {
  const text = offlineSummaryText(buildSummaryRequest({ kind: 'history', messages, maxOutputTokens: 8192, ...extra }));
  return { text, s: parseSummary(text) };
}

describe('offline summarizer: turns, outcomes and errors by purpose (issue 32)', () => {
  it("an extension's message that the model answers is its own turn: its answer is not the request's", () => {
    const { s, text } = summary([
      user('List every calculator model ever made.'),
      answer('1. HP-35 2. TI-30 3. Casio', 'length'),
      custom('status-check', 'An extension asks: please confirm the test status.'),
      answer('Confirmed: the last test run passed (2 tests).'),
      user('Thanks.'),
      answer('You are welcome.'),
    ]);
    const listing = s.done.find((d) => d.includes('List every calculator model'))!;
    assert.ok(listing.startsWith('[ ] ') && listing.includes('cut off at the output limit'), text);
    assert.ok(!listing.includes('Confirmed'), text);
    assert.ok(
      s.done.some((d) => d.startsWith('Replied to an extension message (status-check)') && d.includes('Confirmed')),
      text,
    );
  });

  it('refused, interrupted and failed requests say so; a retried model error is no problem', () => {
    const { s, text } = summary([
      user('Write something edgy.'),
      answer('Well', 'error', 'Provider finish_reason: content_filter'),
      user('Write a long essay.'),
      answer('Calculators have a long', 'aborted'),
      user('Keep it short.'),
      answer('', 'error', '503 Service temporarily overloaded'),
      answer('Abacus, slide rule, pocket calculator.'),
    ]);
    assert.ok(
      s.done.some((d) => d.startsWith('[ ] Write something edgy') && d.includes("refused by the provider's content filter")),
      text,
    );
    assert.ok(
      s.done.some((d) => d.startsWith('[ ] Write a long essay') && d.includes('interrupted by the user')),
      text,
    );
    assert.ok(
      s.done.some((d) => d.startsWith('Keep it short') && d.includes('Abacus')),
      text,
    );
    assert.deepEqual(s.blocked, [], text);
    assert.ok(!text.includes('503'), 'the retried failure is history, not an open problem');
  });

  it('a failed call that a later call of the turn got past is not open; grep exiting 1 found nothing', () => {
    const { s, text } = summary([
      user('Find the FIXMEs and save the list under notes/.'),
      call('a', 'search', { pattern: 'FIXME' }),
      result('a', 'search', 'Tool search not found', true),
      call('b', 'bash', { command: 'grep -rn FIXME src' }, 'There is no search tool here, so I will use grep instead.'),
      result('b', 'bash', 'src/a.js:3: // FIXME: check the input'),
      call('c', 'write', { path: 'notes', content: 'src/a.js:3' }),
      result('c', 'write', "EISDIR: illegal operation on a directory, open 'notes'", true),
      call('d', 'write', { path: 'notes/fixme.txt', content: 'src/a.js:3' }),
      result('d', 'write', 'Successfully wrote to notes/fixme.txt'),
      call('e', 'bash', { command: "grep -c TODO src/*.js | grep -v ':0'" }),
      result('e', 'bash', '(no output)\n\nCommand exited with code 1', true),
      answer('One FIXME, at `src/a.js:3`; the list is in `notes/fixme.txt`. No TODO is left.'),
    ]);
    assert.deepEqual(s.blocked, [], text);
    assert.ok(!/Unresolved error|Fix:/.test(text), text);
    const item = s.done[0];
    assert.ok(item.includes('created `notes/fixme.txt`') && item.includes('src/a.js:3'), item);
    assert.ok(!s.criticalContext.some((c) => /`notes`(?!\/)/.test(c)), 'the failed write to `notes` modified nothing');
    assert.ok(
      s.decisions.some((d) => d.title.includes('use grep instead') && d.rationale.includes('Tool search not found')),
      text,
    );
  });

  it('an error still open at the end of an open turn is Blocked and a Next Step', () => {
    const { s, text } = summary([
      user('Run the tests.'),
      call('a', 'bash', { command: 'npm test' }),
      result('a', 'bash', '1 failing: expected 3 to equal 4\n\nCommand exited with code 1', true),
    ]);
    assert.ok(
      s.blocked.some((b) => b.includes('`npm test`')),
      text,
    );
    assert.ok(
      s.nextSteps.some((n) => n.startsWith('Fix: `bash` on `npm test`')),
      text,
    );
    assert.ok(s.goal[0].startsWith('Run the tests'), text);
  });

  it('a finding the user put off fixing ("Not now") stays open, with the file, but is neither Blocked nor a Next Step', () => {
    const { s, text } = summary(
      [
        user('Run the linter.'),
        call('a', 'bash', { command: 'npm run lint' }),
        result(
          'a',
          'bash',
          "src/app.js\n  3:7  error  'x' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n\nCommand exited with code 1",
          true,
        ),
        answer("The linter found 1 error: src/app.js:3 'x' is assigned a value but never used. Want me to fix it?"),
        user('Not now. Show me the README title instead.'),
        call('b', 'read', { path: 'README.md' }),
        result('b', 'read', '# Shop\n\nA small shop.'),
        answer('The README title is "Shop".'),
      ],
      { keptAfter: true },
    );
    // The linter ran: its request is done (the closing question was an offer, not a plan awaiting approval).
    assert.ok(
      s.done.some((d) => d.startsWith('Run the linter:') && d.includes('1 error')),
      text,
    );
    assert.deepEqual(s.blocked, [], text);
    assert.ok(!s.nextSteps.some((n) => n.startsWith('Fix:')), text);
    assert.ok(
      s.criticalContext.some(
        (c) => c.includes("src/app.js:3:7 error 'x' is assigned") && c.includes('put off fixing it') && c.includes('Not now'),
      ),
      text,
    );
    assert.ok(s.goal[0].endsWith('Show me the README title instead.'), text);
    assert.ok(
      s.decisions.some((d) => d.title.startsWith('Not now') && d.rationale.includes('Want me to fix it?')),
      text,
    );
  });

  it('a reply that takes the offer, or declines an offer of something else, puts off no fix', () => {
    const failing = [
      user('Run the tests.'),
      call('a', 'bash', { command: 'npm test' }),
      result('a', 'bash', '1 failing: expected 3 to equal 4\n\nCommand exited with code 1', true),
    ];
    const accepted = summary([
      ...failing,
      answer('One test fails: expected 3 to equal 4. Want me to fix it?'),
      user('Yes, but use vitest instead.'),
    ]);
    assert.ok(
      accepted.s.blocked.some((b) => b.includes('`npm test`')),
      accepted.text,
    );
    assert.ok(!accepted.text.includes('put off fixing'), accepted.text);
    const other = summary([
      ...failing,
      answer('One test fails: expected 3 to equal 4. Shall I add a CSV export next?'),
      user('Not now, fix the test instead.'),
    ]);
    assert.ok(!other.text.includes('put off fixing'), other.text);
  });

  it("the user's own command is its own turn; a plan answered with a question and then redirected is not done", () => {
    const { s, text } = summary([
      user('Add findBySku. A simple array search is fine.'),
      answer('Plan: use `items.find` in `src/inventory.js`. Shall I go ahead?'),
      user('Instead, use a Map keyed by SKU.'),
      call('a', 'edit', { path: 'src/inventory.js', edits: [{ oldText: 'x', newText: 'const bySku = new Map();' }] }),
      result('a', 'edit', 'Successfully replaced 1 block(s) in src/inventory.js.'),
      answer('Done: `findBySku` looks items up in a Map.'),
      bash('wc -l data/stock.csv', '8 data/stock.csv'),
    ]);
    const plan = s.done.find((d) => d.includes('Add findBySku'))!;
    assert.ok(plan.startsWith('[ ] ') && plan.includes('proposed, not done') && plan.includes('Instead, use a Map'), text);
    assert.ok(
      s.done.some((d) => d.startsWith('Instead, use a Map keyed by SKU') && d.includes('changed `src/inventory.js`')),
      text,
    );
    assert.ok(
      s.done.some((d) => d === 'The user ran `wc -l data/stock.csv` → 8 data/stock.csv'),
      text,
    );
    assert.ok(
      s.decisions.some((d) => d.title.startsWith('Instead, use a Map') && d.rationale.includes('Shall I go ahead?')),
      text,
    );
  });

  it("an answer that points at its command's output keeps the output", () => {
    const { s, text } = summary([
      user('Give me the per-aisle unit totals.'),
      call('a', 'bash', { command: 'sh scripts/report.sh' }),
      result('a', 'bash', 'Aisle A: 120\nAisle B: 75\nAisle C: 300\nTotal: 495'),
      answer('Those are the unit totals per aisle from scripts/report.sh.'),
    ]);
    assert.ok(
      ['120', '75', '300', '495'].every((n) => s.done[0].includes(n)),
      text,
    );
  });

  it('an update replaces the split turn\'s "Working on" line with its outcome, and stays bounded over many updates', () => {
    const first = summary([user('Audit the docs.'), call('a', 'read', { path: 'docs/a.md' }), result('a', 'read', '# A')], {
      kind: 'history',
      openTurnRequest: 'Audit the docs.',
    });
    assert.ok(
      first.s.inProgress.some((i) => i.startsWith('Working on: Audit the docs.')),
      first.text,
    );
    let previous = first.text;
    const sizes: number[] = [];
    for (let k = 0; k < 24; k++) {
      const span = [
        ...(k === 0 ? [answer('The audit found 2 broken links.')] : []),
        user(`Request number ${k}: rename helper${k} to util${k} in src/h${k}.js.`),
        call(`e${k}`, 'edit', { path: `src/h${k}.js`, edits: [{ oldText: `helper${k}`, newText: `util${k}` }] }),
        result(`e${k}`, 'edit', `Successfully replaced 1 block(s) in src/h${k}.js.`),
        answer(`Renamed helper${k} to util${k}.`),
      ];
      const next = summary(span, { kind: 'update', previousSummary: previous });
      assert.ok(!next.s.inProgress.some((i) => i.includes('Audit the docs')), next.text);
      assert.ok(!/Working on:|continues in the/.test(next.s.done.join('\n')), next.text);
      previous = next.text;
      sizes.push(next.text.length);
    }
    const last = parseSummary(previous);
    assert.ok(
      last.done.some((d) => d.startsWith('Earlier: ')),
      previous,
    );
    assert.ok(last.done.length <= 17, `${last.done.length} Done items`);
    // Bounded: once Done is full, more updates name the older items in one line of bounded length.
    assert.ok(sizes[23] < sizes[17] * 1.15, `sizes ${sizes.join(', ')}`);
    assert.equal(extract([]).turns.length, 0);
  });
});

describe('exit codes read per command', () => {
  it('grep, diff and test exiting 1 answer; other programs fail', () => {
    assert.equal(exitAnswer("grep -c FIXME src/*.js | grep -v ':0'", 1), 'exit 1: nothing matched');
    assert.equal(exitAnswer('diff a.txt b.txt', 1), 'exit 1: the files differ');
    assert.equal(exitAnswer('test -f x && echo yes', 1), null, 'the status is the last command’s (echo)');
    assert.equal(exitAnswer('[ -f x ]', 1), 'exit 1: the test was false');
    assert.equal(exitAnswer('grep x y', 2), null, 'grep exiting 2 is an error');
    assert.equal(exitAnswer('npm test', 1), null);
    assert.equal(statusProgram('FOO=1 sudo /usr/bin/rg -n x'), 'rg');
    assert.equal(statusProgram('make || grep x log'), 'grep');
  });
});

describe('the line of an error that says what went wrong', () => {
  it("a linter's finding with its file, a tool's message, a long output read only at its start", () => {
    assert.equal(errorLineOf("src/app.js\n  3:7  error  'x' unused\n\nCommand exited with code 1"), "src/app.js:3:7  error  'x' unused");
    assert.equal(errorLineOf('EISDIR: illegal operation on a directory'), 'EISDIR: illegal operation on a directory');
    assert.equal(errorLineOf('building...\nstep 2\nTypeError: x is not a function\n    at y'), 'TypeError: x is not a function');
    assert.equal(errorLineOf('\n\nplain words\nmore words\n'), 'plain words');
    assert.equal(errorLineOf(`${'line\n'.repeat(100)}error: far down`), 'line');
    const long = 'x'.repeat(1 << 20);
    assert.equal(errorLineOf(long), long);
  });
});

describe('markup a cut cannot break', () => {
  it('an unpaired ** or backtick is dropped', () => {
    assert.equal(balanceMarkup('the **stockroom'), 'the stockroom');
    assert.equal(balanceMarkup('ran `npm test'), 'ran npm test');
    assert.equal(balanceMarkup('**ok** and `x`'), '**ok** and `x`');
  });
});
