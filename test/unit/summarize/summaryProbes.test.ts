/**
 * Issue 32 item 9: the probe-based evaluation of summaries. Every scenario of every probe file (test/fixtures/summary-probes/,
 * test/fixtures/pi-written/) must give a summary that makes none of its false statements; how many facts it keeps is
 * the bench's figure (bench/summaryProbes.ts), not a test. The probe files must be well formed, and the matching
 * rules (test/support/summaryProbeMatch.ts) are checked on small summaries (test/fixtures/summary-probes/_matcher/)
 * so that the evaluation cannot pass by construction.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { parseSummarySections, probeMatches, probeProblems, searchedSections, type Probe } from '../../support/summaryProbeMatch';
import { loadProbeFiles, probeFileName, probeFileProblems, runScenario, selected } from '../../support/summaryProbes';

const matcherText = (name: string) => fs.readFileSync(fixturePath('summary-probes', '_matcher', name), 'utf8');
const probe = (p: Partial<Probe>): Probe => ({ id: 'p', what: 'a probe', all: [], any: [], ...p });

describe('summary probes: the matching rules', () => {
  it('a false statement whose parts sit in two items does not count with sameItem, and does without it', () => {
    const sections = parseSummarySections(matcherText('two-items.md'));
    const spanning = probe({ all: ['calculator model', 'confirmed'] });
    assert.equal(probeMatches(sections, { ...spanning, sameItem: true }), false);
    assert.equal(probeMatches(sections, { ...spanning, sameItem: false }), true);
    // Within one item both parts match.
    assert.equal(probeMatches(sections, probe({ all: ['calculator model', 'length limit'], sameItem: true })), true);
  });

  it('"section" searches only the named sections, a heading finding the sections under it', () => {
    const sections = parseSummarySections(matcherText('two-items.md'));
    const models = probe({ all: ['calculator model'], sameItem: true });
    assert.equal(probeMatches(sections, { ...models, section: 'Done' }), true);
    assert.equal(probeMatches(sections, { ...models, section: 'Progress' }), true, 'Done sits under Progress');
    assert.equal(probeMatches(sections, { ...models, section: ['Blocked', 'Next Steps'] }), false);
    assert.equal(probeMatches(sections, { ...models, section: 'goal' }), true, 'names compare case-insensitively');
    assert.equal(probeMatches(sections, { ...models, section: 'In Progress' }), false, 'In Progress holds only "(none)"');
  });

  it('"any" needs one of its regexes beside every one of "all"; regexes are case-insensitive', () => {
    const sections = parseSummarySections(matcherText('two-items.md'));
    assert.equal(probeMatches(sections, probe({ all: ['LIST EVERY'], any: ['nothing', 'hp-35'], sameItem: true })), true);
    assert.equal(probeMatches(sections, probe({ all: ['list every'], any: ['nothing', 'casio'], sameItem: true })), false);
    assert.equal(probeMatches(sections, probe({ any: ['casio', 'wait for'] })), true);
  });

  it('splits a split-turn summary: preamble, the part after the rule, its headings, the file blocks', () => {
    const sections = parseSummarySections(matcherText('split-turn.md'));
    const byName = (n: string) => sections.filter((s) => s.name === n);
    assert.deepEqual(
      sections.map((s) => s.name),
      [
        'preamble',
        'Goal',
        'Progress',
        'Done',
        'Blocked',
        'Critical Context',
        'preamble',
        'Original Request',
        'Early Progress',
        'read-files',
        'modified-files',
      ],
    );
    assert.deepEqual(byName('preamble')[0].items, ['Note: text before any heading.']);
    assert.deepEqual(byName('preamble')[1].items, ['**Turn Context (split turn):**']);
    assert.deepEqual(byName('Done')[0].path, ['Progress', 'Done']);
    assert.deepEqual(byName('Original Request')[0].path, ['Original Request'], 'a heading after the rule starts afresh');
    assert.deepEqual(byName('read-files')[0].items, ['docs/guide-1.md', 'docs/guide-2.md']);
    assert.deepEqual(byName('modified-files')[0].items, ['docs/guide-2.md']);
    const modified = probe({ any: ['guide-1'], section: 'modified-files' });
    assert.equal(probeMatches(sections, modified), false, 'a file read is not in the modified-files block');
    assert.equal(probeMatches(sections, { ...modified, section: 'read-files' }), true);
    assert.equal(probeMatches(sections, probe({ any: ['exit'], section: ['Blocked', 'Next Steps'], sameItem: true })), true);
    assert.equal(probeMatches(sections, probe({ any: ['exact text'], section: ['Blocked', 'Next Steps'] })), false);
  });

  it('an item holds its continuation lines, nested bullets and fenced block; any other line is an item of its own', () => {
    const sections = parseSummarySections(matcherText('continuation.md'));
    const done = searchedSections(sections, 'Done')[0];
    assert.deepEqual(done.path, ['Summary', 'Progress', 'Done']);
    assert.deepEqual(done.items, [
      '- [x] Added `mul` to src/math.js and exported it from src/index.js - nested: the test `mul(4, 3)` is 12',
      '* star item about CHANGELOG.md',
      '+ plus item about README.md',
      '2. numbered item: 3 tests pass',
      '3) other numbered item: 240 rows',
      'A plain line about the logo.',
      'Another plain line about the CSV.',
      '- item with a code block: ``` node --test test/ # pass 3 ```',
      '- [ ] open item: compare guides 3 and 4',
    ]);
    assert.deepEqual(searchedSections(sections, 'Next Steps')[0].items, ['1. Run the tests'], 'a heading loses ** and its colon');
    // `.` spans an item's continuation lines (joined with spaces), but not two items.
    assert.equal(probeMatches(sections, probe({ all: ['mul.*src/index\\.js.*12'], sameItem: true })), true);
    assert.equal(probeMatches(sections, probe({ all: ['logo.*CSV'], sameItem: true })), false);
    // Without sameItem the searched text keeps its items on separate lines: no flag `s`, so `.` does not cross them.
    assert.equal(probeMatches(sections, probe({ all: ['logo.*CSV'] })), false);
    assert.equal(probeMatches(sections, probe({ all: ['logo', 'CSV'] })), true);
  });

  it('reports a regex that does not compile, a probe without regexes or without "what"', () => {
    assert.deepEqual(probeProblems(probe({ id: 'ok', all: ['a'] })), []);
    assert.match(probeProblems(probe({ id: 'bad', all: ['(unclosed'] })).join('\n'), /bad: \/\(unclosed\/ does not compile/);
    assert.match(probeProblems(probe({ id: 'empty' })).join('\n'), /empty: no regex/);
    assert.match(probeProblems(probe({ id: 'mute', what: ' ', all: ['a'] })).join('\n'), /mute: no "what"/);
  });

  it('--only selects a session or one of its scenarios', () => {
    assert.equal(selected([], '05-misc', 'whole'), true);
    assert.equal(selected(['05-misc'], '05-misc', 'whole'), true);
    assert.equal(selected(['05-misc:whole'], '05-misc', 'mid'), false);
    assert.equal(selected(['01-plain', '05-misc:whole'], '05-misc', 'whole'), true);
  });
});

describe('summary probes: the probe files', () => {
  const files = loadProbeFiles();

  it('cover every Pi-written oracle session, each file well formed', () => {
    const sessions = files.map((f) => f.session).sort();
    for (const s of [
      'test/fixtures/pi-oracle/fixtures/01-plain.jsonl',
      'test/fixtures/pi-oracle/fixtures/02-compaction.jsonl',
      'test/fixtures/pi-oracle/fixtures/03-tree.jsonl',
      'test/fixtures/pi-oracle/fixtures/04-split-turn.jsonl',
      'test/fixtures/pi-oracle/fixtures/05-misc.jsonl',
      'test/fixtures/pi-oracle/fixtures-pi16/01-pi16.jsonl',
    ])
      assert.ok(sessions.includes(s), `no probe file for ${s}`);
    assert.deepEqual(files.flatMap(probeFileProblems), []);
    const names = files.map(probeFileName);
    assert.equal(new Set(names).size, names.length, 'probe file names are unique across the folders');
  });

  it('every probe file in a folder is read, and one that is malformed is reported', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-probe-files-'));
    try {
      const scenario = {
        id: 's',
        kind: 'compaction',
        leafId: 'nope',
        facts: [probe({ id: 'a', all: ['('] })],
        false: [probe({ id: 'a', all: ['x'] })],
      };
      const body = { session: 'test/fixtures/pi-oracle/fixtures/05-misc.jsonl', about: 'x', scenarios: [scenario] };
      fs.writeFileSync(path.join(dir, 'one.json'), JSON.stringify(body));
      fs.writeFileSync(path.join(dir, 'two.json'), JSON.stringify({ ...body, session: 'no/such.jsonl' }));
      fs.writeFileSync(path.join(dir, 'two.meta.json'), JSON.stringify({ description: 'not a probe file' }));
      fs.writeFileSync(path.join(dir, 'three.json'), '{ "session": ');
      const read = loadProbeFiles([dir, path.join(dir, 'missing')]);
      assert.deepEqual(read.map(probeFileName), ['one', 'three', 'two']);
      const problems = read.flatMap(probeFileProblems).join('\n');
      assert.match(problems, /leafId nope is not an entry/);
      assert.match(problems, /probe id a not unique/);
      assert.match(problems, /does not compile/);
      assert.match(problems, /session no\/such\.jsonl does not exist/);
      assert.match(problems, /three\.json: not JSON/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('summary probes: no false statement on the Pi-written sessions (offline summarizer)', () => {
  for (const pf of loadProbeFiles()) {
    for (const s of pf.scenarios) {
      it(`${probeFileName(pf)}:${s.id} makes a summary without any of its ${s.false.length} false statements`, async () => {
        const before = fs.readFileSync(path.join(repoRoot, pf.session));
        const r = await runScenario(pf, s);
        assert.ok(fs.readFileSync(path.join(repoRoot, pf.session)).equals(before), 'the session file was written');
        assert.equal(r.outcome, 'summary', `no summary: ${r.outcome} ${r.reason ?? ''}`);
        const present = r.falsePresent.map((p) => `  ${p.id}: ${p.what}`);
        assert.ok(present.length === 0, `false statements:\n${present.join('\n')}\n--- summary ---\n${r.summary}`);
      });
    }
  }
});
