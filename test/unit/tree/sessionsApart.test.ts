// Issue 34 item 3: sessions told apart in lists: activity from the entries, one order (newest activity first), search
// hits grouped by session under whole names; a filter that hides every entry says so.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { peekSession } from '../../../src/engine/tree/sessionPeek';
import { byLastActivity, relativeTime } from '../../../src/engine/tree/sessionOrder';
import { emptyUnderFilterText } from '../../../src/engine/tree/rowFilter';
import { shownTitle } from '../../../src/engine/tree/sessionTitle';
import { listedSessions } from '../../../src/cli/sessionList';
import { runCli } from '../../../src/cli/main';
import { sessionsDirFor } from '../../../src/engine/session/discovery';
import { fixturePath } from '../../support/fixtures';

const WORKSPACE = fixturePath('workspace', '.pi', 'sessions');

async function run(args: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  assert.equal(code, 0, err.join('\n'));
  return out.join('\n');
}

describe('sessions told apart (issue 34 item 3)', () => {
  let agent: string;
  let dir: string;
  const cwd = '/work/apart';
  const saved = { ...process.env };
  before(async () => {
    agent = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-apart-'));
    process.env.PI_CODING_AGENT_DIR = agent;
    delete process.env.PI_CODING_AGENT_SESSION_DIR;
    dir = sessionsDirFor(cwd);
    await fsp.mkdir(dir, { recursive: true });
    // The workspace's sessions, their mtimes the reverse of their activity (a copy, a backup, a touch).
    const names = (await fsp.readdir(WORKSPACE)).sort();
    for (const [k, name] of names.entries()) {
      await fsp.copyFile(path.join(WORKSPACE, name), path.join(dir, name));
      const t = new Date(Date.UTC(2026, 11, 1) - k * 3600_000);
      await fsp.utimes(path.join(dir, name), t, t);
    }
  });
  after(async () => {
    process.env = saved;
    await fsp.rm(agent, { recursive: true, force: true });
  });

  it('first activity is the first entry’s time, not a header written later (a copy stamped now)', async () => {
    const peek = await peekSession(fixturePath('sessions', 'header-after-entries.jsonl'));
    assert.equal(peek.startedMs, Date.parse('2026-12-03T09:00:00.000Z'), 'the header says it started later');
    assert.equal(peek.firstActivityMs, Date.parse('2026-11-29T19:22:30.709Z'));
    assert.ok(peek.firstActivityMs! <= peek.lastActivityMs!, 'first activity never after the last');
  });

  it('lists sessions newest activity first whatever their mtimes; equal times by path', async () => {
    const listed = await listedSessions([dir]);
    const last = listed.map((s) => s.lastActivityMs);
    assert.deepEqual(
      last,
      [...last].sort((a, b) => b - a),
    );
    const byMtime = [...listed].sort((a, b) => b.mtimeMs - a.mtimeMs).map((s) => s.file);
    assert.notDeepEqual(
      listed.map((s) => s.file),
      byMtime,
      'the mtime order is another order',
    );
    assert.deepEqual(
      byLastActivity(
        [
          { file: 'b', lastActivityMs: 5 },
          { file: 'a', lastActivityMs: 5 },
          { file: 'c', lastActivityMs: 9 },
        ],
        (x) => x,
      ).map((x) => x.file),
      ['c', 'a', 'b'],
    );
    const text = await run(['sessions', '--cwd', cwd]);
    assert.match(text.split('\n')[0], /: 6 sessions, newest activity first$/);
    // Every title line is whole and the four sharing a title each say their newest request.
    const titles = text.split('\n').filter((l) => /^ {2}\S/.test(l));
    assert.equal(titles.filter((l) => l.includes('(latest: ')).length, 4, titles.join('\n'));
    assert.equal(new Set(titles).size, titles.length);
    for (const l of titles) assert.ok(!l.endsWith('…'), l);
    assert.match(text, /last active .*ago · 4 branches · 51 entries · 34 KB/);
  });

  it('arbor search groups hits under each session, named whole, with its count', async () => {
    const text = await run(['search', '--cwd', cwd, 'README']);
    const heads = text.split('\n').filter((l) => /^\S.*: \d+ match(es)?$/.test(l));
    assert.equal(heads.length, 4, text);
    assert.equal(new Set(heads).size, 4, 'each session heads its hits once');
    for (const h of heads) assert.match(h, /^Take a look at this project and tell me what it does\. \(latest: .*[^…]\): \d+ match/);
    const counts = heads.map((h) => Number(/: (\d+) match/.exec(h)![1]));
    assert.match(text, new RegExp(`${counts.reduce((a, b) => a + b)} matches in 4 sessions \\(6 sessions searched\\)$`));
  });

  it('a filter that hides every entry says so; the one title fallback is the file name', () => {
    assert.match(emptyUnderFilterText('labeledOnly'), /^No labeled entries \(filter: Labeled Only/);
    assert.equal(shownTitle(undefined, '/x/2026-11-29T19-22-30-708Z_01a2.jsonl'), '2026-11-29T19-22-30-708Z_01a2');
    assert.equal(shownTitle('Named', '/x/a.jsonl'), 'Named');
    assert.equal(relativeTime(Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 5)), '4 d ago');
  });
});
