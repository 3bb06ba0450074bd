/** Issue 19 item 1: the engine's retention check (normalized matching, linear, put back). */
import * as assert from 'node:assert/strict';
import {
  checkRetention,
  deriveFacts,
  isConstraintSentence,
  isSocial,
  putBack,
  type Fact,
} from '../../../../src/engine/summarize/retention';
import { findPatterns } from '../../../../src/engine/summarize/retention/multiMatch';
import { parseSummary } from '../../../../src/engine/summarize/parseSummary';
import { hostileSummary, manyFacts } from '../../../support/hostileRetention';

const fact = (kind: Fact['kind'], text: string, entryId: string | null = 'e1'): Fact => ({ kind, text, entryId });

describe('retention check: matching by meaning-preserving normalization', () => {
  it('case, whitespace, quotes, backticks and emphasis do not matter; words do', () => {
    const facts = [
      fact('constraint', 'Never add   new npm dependencies.'),
      fact('identifier', 'node --test test/'),
      fact('decision', 'Use a plain object'),
    ];
    const r = checkRetention('- **NEVER** add new "npm" dependencies\n- ran `node --test  test/`\n- use a *plain* object', facts);
    assert.equal(r.missing.length, 0, JSON.stringify(r.missing));
    const r2 = checkRetention('Always add new npm dependencies.', facts);
    assert.deepEqual(
      r2.missing.map((f) => f.kind),
      ['constraint', 'identifier', 'decision'],
    );
  });

  it('a path relative to the cwd, absolute under it, or with ./ is the same path; a.ts is not data.ts', () => {
    const cwd = '/home/user/shop';
    const facts = [
      fact('file', 'src/cart.ts'),
      fact('file', '/home/user/shop/src/checkout.ts'),
      fact('file', 'a.ts'),
      fact('file', './docs/x.md'),
    ];
    const r = checkRetention('Changed /home/user/shop/src/cart.ts, `./src/checkout.ts`, data.ts and docs/x.md.', facts, { cwd });
    assert.deepEqual(
      r.missing.map((f) => f.text),
      ['a.ts'],
    );
  });

  it('a long fact is found by its start (summaries clip long items)', () => {
    const long =
      'Set up the checkout module in src/checkout.ts and wire it to the cart so that discounts apply before taxes, then document it.';
    assert.equal(checkRetention(`- Working on: ${long.slice(0, 90)}…`, [fact('request', long)]).missing.length, 0);
  });

  it('reports kept and missing in the facts order, each with its kind, text and entry', () => {
    const facts = [fact('constraint', 'Keep it short.', 'a'), fact('request', 'Fix the build', 'b')];
    const r = checkRetention('Fix the build now', facts);
    assert.deepEqual(r, { kept: [facts[1]], missing: [facts[0]], contradictions: [], cannotCheck: null });
  });

  it('hostile input: a 1 MB unbroken summary and 20 000 facts (and a 1 MB fact) are checked in one pass, deterministically', () => {
    // Every fact below is inside longer words of the summary or absent: found nowhere at word boundaries.
    const summary = hostileSummary(1 << 20);
    const facts = [...manyFacts(20000), fact('request', 'a'.repeat(1 << 20))];
    const a = checkRetention(summary, facts);
    const b = checkRetention(summary, facts);
    assert.deepEqual(a, b);
    assert.equal(a.kept.length + a.missing.length, facts.length);
    assert.ok(
      a.missing.some((f) => f.kind === 'request'),
      'the 1 MB fact is only inside a longer word',
    );
    const found = checkRetention(`${summary} x`, [fact('identifier', 'b/c'), fact('identifier', 'x')]);
    assert.deepEqual(
      found.missing.map((f) => f.text),
      ['b/c'],
      'b/c is inside longer words; x stands alone',
    );
  });

  it('the matcher finds overlapping and nested patterns, each only at word boundaries', () => {
    assert.deepEqual(
      findPatterns('she sells seashells; a.ts and data.ts', ['she', 'he', 'hells', 'seashells', 'a.ts', 'ata.ts', 'ells;', '; a.ts']),
      [true, false, false, true, true, false, false, true],
    );
    assert.deepEqual(findPatterns('', ['x', '']), [false, true]);
  });
});

describe('retention check: reading the user', () => {
  it('a constraint is a rule for the work, not a request that contains "always"', () => {
    for (const s of [
      'From now on, always run `node --test test/` after you change anything in src/, and never add dependencies to package.json.',
      'You must keep the public API of src/cart.ts unchanged, and never add new npm dependencies.',
      'Prefer small pure functions.',
      'Always run `npm test` after an edit.',
      "Don't touch the lockfile.",
      'Please avoid classes.',
    ]) {
      assert.ok(isConstraintSentence(s), s);
    }
    for (const s of [
      'Add a `mod` function to src/math.js that always returns a non-negative result, with a test.',
      'Run the tests and tell me if they pass.',
      'Should we always use tabs?',
      'Create a CHANGELOG.md with an entry for mul.',
    ]) {
      assert.ok(!isConstraintSentence(s), s);
    }
  });

  it('pleasantries are not requests', () => {
    for (const s of ["Thanks, that's all.", "Thanks, that's all for now.", 'ok', 'Great, thank you!']) assert.ok(isSocial(s), s);
    for (const s of [
      'Thanks. Next: add a `currency` option to src/checkout.ts with GBP as the default.',
      'ok, now run the tests',
      'Not now. Bump the version in package.json to 0.3.0.',
    ])
      assert.ok(!isSocial(s), s);
  });

  it('derives no facts from an empty span (it cannot be checked), and survives values of the wrong type', () => {
    const empty = deriveFacts({ messages: [] });
    assert.deepEqual(empty.facts, []);
    assert.equal(empty.cannotCheck, 'the summarized span holds no messages');
    const hostile = [
      { entryId: 'x', message: { role: 'user', content: 42 } },
      {
        entryId: 'y',
        message: {
          role: 'assistant',
          content: [null, { type: 'toolCall', id: 1, name: 'edit', arguments: 'nope' }],
          stopReason: 'toolUse',
        },
      },
      { entryId: 'z', message: { role: 'toolResult', toolCallId: 1, content: null, isError: true } },
    ] as never;
    assert.doesNotThrow(() => deriveFacts({ messages: hostile, pinned: [], modifiedFiles: [], cwd: 7 as never }));
  });
});

describe('retention check: putting back what can be put back', () => {
  const summary = [
    '## Goal',
    '- Ship the checkout',
    '',
    '## Constraints & Preferences',
    '(none)',
    '',
    '## Progress',
    '### Done',
    '- [x] Wrote src/checkout.ts',
    '### In Progress',
    '(none)',
    '### Blocked',
    '(none)',
    '',
    '## Critical Context',
    '- Something',
    '',
    '---',
    '',
    '## Where the Current Turn Began',
    '',
    '### Original Request',
    'Rename total',
    '',
    '<modified-files>',
    'src/checkout.ts',
    '</modified-files>',
  ].join('\n');
  const missing: Fact[] = [
    fact('constraint', 'Never add new npm dependencies.'),
    fact('request', 'Add a discount field\nand run the tests.'),
    fact('file', 'src/cart.ts'),
    { kind: 'pin', text: 'Prefer small pure functions.', entryId: 'p1', pin: { kind: 'user', label: '📌 rules' } },
    fact('error', 'FAIL cart.test.ts'),
  ];

  it('adds each to its section (replacing a placeholder), before the turn context and the file lists; the rest is unchanged', () => {
    const out = putBack(summary, missing);
    const parsed = parseSummary(out);
    assert.deepEqual(parsed.constraints, ['Never add new npm dependencies.']);
    assert.deepEqual(parsed.inProgress, ['Add a discount field and run the tests.']);
    assert.ok(parsed.criticalContext.includes('Modified files: `src/cart.ts`'), out);
    assert.ok(out.includes('### Pinned\n<pinned id="p1" kind="user" label="📌 rules">\nPrefer small pure functions.\n</pinned>'), out);
    assert.ok(out.indexOf('</pinned>') < out.indexOf('\n---\n'), out);
    assert.ok(out.endsWith('<modified-files>\nsrc/checkout.ts\n</modified-files>'), out);
    assert.equal(parsed.turnContext?.includes('Rename total'), true);
    const after = checkRetention(out, missing);
    assert.deepEqual(
      after.missing.map((f) => f.kind),
      ['error'],
      'everything but the error (not mechanically restorable) is kept now',
    );
  });

  it('adds a missing section, and adds a pin into an existing Pinned part', () => {
    const withPin = '## Goal\n- X\n\n## Critical Context\n- y\n\n### Pinned\n<pinned id="p0" kind="user" label="pin">\nOld\n</pinned>';
    const out = putBack(withPin, missing.slice(0, 4));
    assert.ok(out.includes('## Constraints & Preferences\n- Never add new npm dependencies.'), out);
    assert.ok(out.includes('## In Progress\n- [ ] Add a discount field and run the tests.'), out);
    assert.ok(out.includes('Old\n</pinned>\n<pinned id="p1"'), out);
    assert.equal(out.split('### Pinned').length, 2, 'one Pinned part');
    assert.deepEqual(checkRetention(out, missing.slice(0, 4)).missing, []);
  });

  it('leaves a summary alone when nothing restorable is missing, and works on an empty one', () => {
    assert.equal(putBack(summary, [fact('error', 'x')]), summary);
    assert.deepEqual(checkRetention(putBack('', missing), missing.slice(0, 4)).missing, []);
  });
});
