import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { emptySummary, formatSummary, parseSummary, type ParsedSummary } from '../../../src/engine/summarize/parseSummary';
import { summarySections } from '../../../src/engine/summarize/summarySections';
import { BRANCH_SUMMARY_PREAMBLE, mergeSplitTurnSummary } from '../../../src/engine/summarize/prompts';
import { summaryFixture, summaryFixtures } from './helpers';

/** Only the fields that hold something, for compact expectations. */
function filled(s: ParsedSummary): Partial<ParsedSummary> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (v !== null && !(Array.isArray(v) && v.length === 0)) out[k] = v;
  return out as Partial<ParsedSummary>;
}

const WELL_FORMED: ParsedSummary = {
  goal: ['Add a `mul` function to the tiny-calc library and document it'],
  constraints: ['Keep the library dependency-free', 'Tests run with `node --test`'],
  done: ['Implemented `mul(a, b)` in `src/math.js`', 'Re-exported `mul` from `src/index.js`'],
  inProgress: ['Writing the CHANGELOG entry'],
  blocked: ['`npm publish` fails: E403 You do not have permission to publish "tiny-calc"'],
  decisions: [
    { title: 'Export from index.js', rationale: 'callers import everything from the entry point' },
    { title: 'No new dependencies', rationale: 'the user asked to keep the package dependency-free' },
  ],
  nextSteps: ['Finish `CHANGELOG.md`', 'Ask the user for publish rights'],
  criticalContext: ['Test command: `node --test test/`', 'Error: `E403 You do not have permission to publish "tiny-calc"`'],
  turnContext: null,
  readFiles: ['README.md', 'test/math.test.js'],
  modifiedFiles: ['src/index.js', 'src/math.js'],
  preamble: null,
  unknownSections: [],
  pins: [],
  pinsNote: null,
};

describe('parseSummary', () => {
  it('reads a well-formed summary (fixture)', () => {
    assert.deepEqual(parseSummary(summaryFixture('well-formed.md')), WELL_FORMED);
  });

  it('round-trips: format -> parse gives the same summary, and format is stable', () => {
    const full: ParsedSummary = {
      ...WELL_FORMED,
      preamble: BRANCH_SUMMARY_PREAMBLE,
      turnContext: '### Original Request\nRename `a` to `b`.\n\n### Early Progress\n- [x] Read `src/a.ts`',
      unknownSections: [{ heading: 'Open Questions', body: '- Should the tag be signed?' }],
      decisions: [...WELL_FORMED.decisions, { title: 'Keep the old name as an alias', rationale: '' }],
    };
    const text = formatSummary(full);
    assert.deepEqual(parseSummary(text), full);
    assert.equal(formatSummary(parseSummary(text)), text);
    // The fixture is in the canonical format already (up to the file-list layout).
    assert.equal(formatSummary(parseSummary(summaryFixture('well-formed.md'))).trim(), summaryFixture('well-formed.md').trim());
  });

  it('round-trips an empty summary; (none) placeholders are dropped', () => {
    const text = formatSummary(emptySummary());
    assert.ok(text.includes('### Blocked\n(none)'));
    assert.deepEqual(parseSummary(text), emptySummary());
  });

  it('"(nothing completed yet)" and "(unclear)" are placeholders: no ticked box, no goal', () => {
    const parsed = parseSummary(
      '## Goal\n- (unclear)\n\n## Progress\n### Done\n- [x] (nothing completed yet)\n### In Progress\n- [ ] (none)',
    );
    assert.deepEqual([parsed.goal, parsed.done, parsed.inProgress], [[], [], []]);
  });

  it('an unticked Done item (interrupted, refused) keeps its open box in the text and in the panel/CLI sections', () => {
    const s: ParsedSummary = { ...emptySummary(), done: ['Added the spec', '[ ] Now refactor everything — interrupted by the user'] };
    const text = formatSummary(s);
    assert.match(text, /^- \[x\] Added the spec$/m);
    assert.match(text, /^- \[ \] Now refactor everything/m);
    assert.deepEqual(parseSummary(text).done, s.done);
    const done = summarySections(parseSummary(text)).done.split('\n');
    assert.deepEqual(done, ['- [x] Added the spec', '- [ ] Now refactor everything — interrupted by the user']);
  });

  it('formats without Critical Context for branch summaries', () => {
    const text = formatSummary({ goal: ['G'], criticalContext: ['dropped'] }, { criticalContext: false });
    assert.ok(!text.includes('Critical Context'));
    assert.deepEqual(parseSummary(text).criticalContext, []);
  });

  it('round-trips random summaries (property)', () => {
    const line = fc
      .string({ minLength: 1, maxLength: 40 })
      .map((s) => s.replace(/[\r\n`*_#<>[\]\-:—–()|\\]/g, 'x').trim())
      .filter((s) => s.length > 0 && !/^(none|n\/?a|nothing|empty|tbd|x+)$/i.test(s) && !/^\d+[.)]/.test(s) && !/^[+•~]/.test(s));
    const items = fc.uniqueArray(line, { maxLength: 4 });
    const summary = fc.record({
      goal: items,
      constraints: items,
      done: items,
      inProgress: items,
      blocked: items,
      decisions: fc.uniqueArray(
        fc.record({ title: line, rationale: fc.oneof(fc.constant(''), line) }).map((d) => ({ title: d.title, rationale: d.rationale })),
        { maxLength: 3, selector: (d) => d.title },
      ),
      nextSteps: items,
      criticalContext: items,
      readFiles: items,
      modifiedFiles: items,
    });
    fc.assert(
      fc.property(summary, (s) => {
        const expected: ParsedSummary = { ...emptySummary(), ...s };
        assert.deepEqual(parseSummary(formatSummary(expected)), expected);
      }),
      { numRuns: 200 },
    );
  });

  it('never throws, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const r = parseSummary(s);
        assert.ok(Array.isArray(r.goal) && Array.isArray(r.decisions) && Array.isArray(r.unknownSections));
      }),
      { numRuns: 300 },
    );
    const structured = fc.array(
      fc.constantFrom(
        '## Goal',
        '### Done',
        '---',
        '```',
        '- [x] a',
        '* b',
        '1. c',
        '<read-files>',
        '</read-files>',
        'x.ts',
        '',
        '**Key Decisions**',
        'Next: d',
        '## Turn',
        '(none)',
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(structured, (lines) => {
        parseSummary(lines.join('\n'));
      }),
      { numRuns: 300 },
    );
    for (const v of [undefined, null, 42, {}, '', '   ']) assert.deepEqual(parseSummary(v as unknown as string), emptySummary());
  });

  describe('tolerates malformed summaries', () => {
    const cases: Record<string, Partial<ParsedSummary>> = {
      'malformed-01-missing-sections.md': {
        goal: ['Make the CSV loader stream rows instead of reading the whole file.'],
        nextSteps: ['Replace `fs.readFileSync` in `src/load.js` with a line reader', 'Add a test with a 10 MB fixture'],
      },
      'malformed-02-heading-levels-and-case.md': {
        goal: ['Speed up the test suite'],
        constraints: ['Do not touch CI config'],
        done: ['Profiled the slow tests'],
        inProgress: ['Parallelising `test/db.test.js`'],
        decisions: [{ title: 'Use worker threads', rationale: 'the suite is CPU-bound' }],
        nextSteps: ['Measure again'],
        criticalContext: ['Slowest test: `test/db.test.js` (41 s)'],
      },
      'malformed-03-star-bullets.md': {
        goal: ['Ship the dark theme', 'Keep the light theme as default'],
        done: ['Added CSS variables', 'Wired the theme switch'],
        inProgress: ['Checking contrast'],
        blocked: ['Missing design tokens for the sidebar'],
        decisions: [{ title: 'CSS variables over a preprocessor', rationale: 'no build step needed' }],
        nextSteps: ['Review contrast ratios', 'Ask design for sidebar tokens'],
      },
      'malformed-04-numbered-and-plain-progress.md': {
        goal: ['Migrate the config loader to YAML'],
        done: ['Wrote the YAML schema', 'Removed the JSON5 dependency'],
        inProgress: ['Converting `config/default.json`'],
        decisions: [
          { title: 'Keep JSON support', rationale: 'old configs must still load' },
          { title: 'Schema first', rationale: 'catches mistakes early' },
        ],
        nextSteps: ['Convert the remaining configs', 'Update the docs'],
      },
      'malformed-05-free-prose.md': {
        preamble:
          'The user wants the login page to remember the last email address. So far the assistant\nadded a ' +
          ('`rememberEmail` flag to `src/auth/form.ts` and stored the value in localStorage.\n\nTests were not run yet. ' +
            'The next thing is to run `npm test` and check the form on mobile.'),
      },
      'malformed-06-none-placeholders.md': {
        goal: ['Fix the flaky upload test'],
        done: ['Reproduced the flake with `--repeat 50`'],
        nextSteps: ['Add a retry around the S3 mock'],
      },
      'malformed-07-file-blocks-anywhere.md': {
        goal: ['Add request logging'],
        done: ['Added a logging middleware'],
        nextSteps: ['Log response times'],
        readFiles: ['src/app.ts', 'src/middleware/index.ts', 'src/config.ts'],
        modifiedFiles: ['src/server.ts', 'src/middleware/log.ts'],
      },
      'malformed-08-split-turn-and-preamble.md': {
        preamble: 'The user explored a refactor of the parser on another branch and came back.',
        goal: ['Refactor the tokenizer'],
        done: ['Split `lex()` into `scanIdent()` and `scanNumber()`'],
        nextSteps: ['Run the benchmarks'],
        turnContext:
          'The user asked to rename `scanIdent` to `scanWord`. The assistant read `src/lexer.ts`\nand found three call sites in `src/parser.ts`.',
      },
      'malformed-09-bold-and-label-headings.md': {
        goal: ['Document the CLI flags'],
        done: ['Listed all flags in `src/cli.ts`'],
        decisions: [
          { title: 'Generate the docs from `--help`', rationale: 'they stay in sync' },
          { title: 'Markdown tables', rationale: 'easier to read on GitHub' },
        ],
        nextSteps: ['publish the docs site'],
      },
      'malformed-10-unknown-sections-and-fences.md': {
        goal: ['Fix the release script'],
        criticalContext: [
          'The failing step:\n```sh\ngit tag -a v1.2.0\n---\n## not a heading\n```',
          "Exact error: `fatal: tag 'v1.2.0' already exists`",
        ],
        unknownSections: [
          { heading: 'Notes', body: 'The script is only run by hand.' },
          { heading: 'Open Questions', body: '- Should tags be signed?' },
        ],
        nextSteps: ['Delete the stale tag'],
      },
    };

    it('has a fixture file for every case', () => {
      assert.deepEqual(summaryFixtures('malformed-'), Object.keys(cases).sort());
    });

    for (const [file, expected] of Object.entries(cases)) {
      it(file.replace(/^malformed-\d+-|\.md$/g, '').replace(/-/g, ' '), () => {
        assert.deepEqual(filled(parseSummary(summaryFixture(file))), expected);
      });
    }

    it('CRLF line ends and a BOM', () => {
      const text = '\uFEFF' + summaryFixture('well-formed.md').replace(/\n/g, '\r\n');
      assert.deepEqual(parseSummary(text), WELL_FORMED);
    });

    it('a horizontal rule between sections is not a turn context', () => {
      const text = '## Goal\n- A\n\n---\n\n## Next Steps\n1. B';
      const r = parseSummary(text);
      assert.equal(r.turnContext, null);
      assert.deepEqual(r.nextSteps, ['B']);
    });

    it('a split-turn summary with file lists after the turn context', () => {
      const text = `${mergeSplitTurnSummary('## Goal\n- A', '### Original Request\nDo B')}\n\n<read-files>\na.ts\n</read-files>`;
      const r = parseSummary(text);
      assert.equal(r.turnContext, '### Original Request\nDo B');
      assert.deepEqual(r.readFiles, ['a.ts']);
    });
  });
});
