// Issue 21 item 4: sessions told apart everywhere, by one rule (name, else first request; then what differs).
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { labelFact, sessionTitles, titleFactsFromIndex, titleLine, type TitleFacts } from '../../../src/engine/tree/sessionTitle';
import { peekSession, peekTitleFacts } from '../../../src/engine/tree/sessionPeek';
import { loadSession } from '../../../src/engine/session/loadSession';
import { runCli } from '../../../src/cli/main';
import { sessionsDirFor } from '../../../src/engine/session/discovery';
import { searchSession, type SearchHit } from '../../../src/engine/search/searchSession';
import { fixturePath } from '../../support/fixtures';

const facts = (f: Partial<TitleFacts>): TitleFacts => ({
  name: undefined,
  firstRequest: undefined,
  latestRequest: undefined,
  startedMs: undefined,
  ...f,
});

describe('session titles (one rule) and arbor sessions / arbor search', () => {
  it('name wins over the first request; equal titles are told apart by the newest request, else the label, else the counts, else the start', () => {
    const t0 = new Date(2026, 4, 12, 14, 3, 10).getTime();
    const list = [
      facts({ name: 'Named', firstRequest: 'Take a look', startedMs: t0 }),
      facts({ firstRequest: 'Take a look', startedMs: t0, latestRequest: 'Add mul', entries: 40 }),
      facts({ firstRequest: 'Take a look', startedMs: t0 + 60_000, latestRequest: 'Add mul', latestLabel: 'mul-done', entries: 40 }),
      facts({ firstRequest: 'Take a look', startedMs: t0 + 120_000, latestRequest: 'Fix the bug' }),
      facts({ firstRequest: 'Take a look', startedMs: t0 + 180_000, latestRequest: 'Take a look', branches: 3, entries: 52 }),
      facts({ firstRequest: 'Other', startedMs: t0 }),
      facts({}),
    ];
    const t = sessionTitles(list);
    assert.deepEqual(
      t.map((x) => titleLine(x, '/s/file.jsonl')),
      [
        'Named',
        // Two share "Add mul": the one without a label is told by its start.
        'Take a look (started 2026-05-12 14:03)',
        'Take a look (#mul-done)',
        'Take a look (latest: Fix the bug)',
        // Its newest request is its title: that says nothing; its counts do.
        'Take a look (3 branches · 52 entries)',
        'Other',
        // No title: the file's name.
        'file',
      ],
    );
    // Narrow (the sidebar): the shared title cut short at a word, what tells it apart after it.
    assert.equal(titleLine(t[3], 'f', { narrow: true }), 'Take a look › Fix the bug');
    const long = sessionTitles([
      facts({ firstRequest: 'Take a look at this project and tell me what it does.', latestRequest: 'Add pow(a, b) to src/math.js' }),
      facts({ firstRequest: 'Take a look at this project and tell me what it does.', latestRequest: 'Thanks.' }),
    ]);
    assert.deepEqual(
      long.map((x) => titleLine(x, 'f', { narrow: true })),
      ['Take a look… › Add pow(a, b) to src/math.js', 'Take a look… › Thanks.'],
    );
    assert.equal(
      titleLine({ title: 'Only one', differs: undefined }, 'f', { narrow: true }),
      'Only one',
      'a title no other shares is whole',
    );
    // Same requests, no labels or counts: the start, to the second when the minute is shared.
    const seconds = sessionTitles([facts({ firstRequest: 'A', startedMs: t0 }), facts({ firstRequest: 'A', startedMs: t0 + 5000 })]);
    assert.deepEqual(
      seconds.map((x) => x.differs),
      ['started 2026-05-12 14:03:10', 'started 2026-05-12 14:03:15'],
    );
    // Copies of one file: nothing unique; what there is, together.
    const copies = sessionTitles([
      facts({ firstRequest: 'A', latestRequest: 'B', entries: 3 }),
      facts({ firstRequest: 'A', latestRequest: 'B', entries: 3 }),
    ]);
    assert.deepEqual(
      copies.map((x) => x.differs),
      ['latest: B · 3 entries', 'latest: B · 3 entries'],
    );
  });

  it('a pin counts as its label; branch tips and entries are counted alike by the peek and the index', async () => {
    const file = fixturePath('workspace', '.pi', 'sessions', '2026-11-29T19-22-32-013Z_01a228c2-4ccd-772e-a4bc-17cde9390c91.jsonl');
    const fromIndex = titleFactsFromIndex(await loadSession(file));
    assert.deepEqual(peekTitleFacts(await peekSession(file)), fromIndex);
    assert.ok((fromIndex.branches ?? 0) > 1, `the tree demo session has branches: ${fromIndex.branches}`);
    assert.equal(labelFact('📌 mul-done'), 'mul-done');
    assert.equal(labelFact('📌'), 'pinned');
    assert.equal(labelFact(''), undefined);
  });

  it('the loaded index and the peek give the same facts (one rule for the sidebar before and after loading)', async () => {
    for (const name of ['02-compaction', '05-misc', '04-split-turn']) {
      const file = fixturePath('pi-oracle', 'fixtures', `${name}.jsonl`);
      assert.deepEqual(peekTitleFacts(await peekSession(file)), titleFactsFromIndex(await loadSession(file)), name);
    }
  });

  it("arbor sessions shows titles (title in --json, told apart); arbor search --cwd gives the engine's hits with the session title", async () => {
    const agent = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-titles-'));
    const saved = { ...process.env };
    try {
      process.env.PI_CODING_AGENT_DIR = agent;
      delete process.env.PI_CODING_AGENT_SESSION_DIR;
      const cwd = '/work/project';
      const dir = sessionsDirFor(cwd);
      await fsp.mkdir(dir, { recursive: true });
      const src = await fsp.readFile(fixturePath('pi-oracle', 'fixtures', '02-compaction.jsonl'), 'utf8');
      await fsp.writeFile(path.join(dir, 'a.jsonl'), src);
      await fsp.writeFile(path.join(dir, 'b.jsonl'), src.replace(/"timestamp":"2026-11-29T19:22:3/, '"timestamp":"2026-11-28T08:00:0'));
      const run = async (args: string[]) => {
        const out: string[] = [];
        const err: string[] = [];
        const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
        assert.equal(code, 0, err.join('\n'));
        return out.join('\n');
      };
      const listed = JSON.parse(await run(['sessions', '--cwd', cwd, '--json']));
      const titles = listed.sessions.map((s: { title: string }) => s.title).sort();
      assert.equal(titles.length, 2);
      assert.notEqual(titles[0], titles[1], 'two copies of a session are told apart');
      for (const t of titles)
        assert.match(t, /^Take a look at this project.* \(started \d{4}-\d\d-\d\d \d\d:\d\d\)$/, 'copies differ only by their start');
      assert.match(await run(['sessions', '--cwd', cwd]), /Take a look at this project/);

      const found = JSON.parse(await run(['search', '--cwd', cwd, 'mul', '--json']));
      const direct: SearchHit[] = [];
      for (const s of listed.sessions) await searchSession(s.file, { query: 'mul', onHit: (h) => direct.push(h) });
      assert.ok(direct.length > 0);
      assert.deepEqual(
        found.hits
          .map(({ title: _title, ...h }: { title: string }) => h)
          .sort((a: SearchHit, b: SearchHit) => a.file.localeCompare(b.file) || a.line - b.line),
        direct.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line),
      );
      for (const h of found.hits) assert.ok(titles.includes(h.title), 'each hit names its session by its title');
      const text = await run(['search', '--cwd', cwd, 'mul']);
      assert.match(text, new RegExp(`${direct.length} matches in 2 sessions \\(2 sessions searched\\)$`));
    } finally {
      process.env = saved;
      await fsp.rm(agent, { recursive: true, force: true });
    }
  });
});
