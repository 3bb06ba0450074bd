/** Issue 13 item 4 and issue 11 item 8: what the built CLI prints is safe, bounded and streamed. */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { fixturePath } from '../../support/fixtures';
import { arbor, cli } from '../../support/builtCli';
import { sanitizeOutput, shortField } from '../../../src/cli/output';
import { generateTreeSession } from '../../../bench/generateTreeSession';

const hostile = fixturePath('sessions', 'hostile-escapes.jsonl');
/** Control (C0 but line break and tab, DEL, C1) and bidi characters, and lone surrogates: never raw on a terminal. */
const RAW_UNSAFE = new RegExp(
  [
    '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]',
    '[\\ud800-\\udbff](?![\\udc00-\\udfff])',
    '(?<![\\ud800-\\udbff])[\\udc00-\\udfff]',
  ].join('|'),
  '',
);

function assertSafe(what: string, text: string): void {
  const m = RAW_UNSAFE.exec(text);
  assert.equal(
    m,
    null,
    `${what}: raw U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m?.index}: ` +
      `${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 30), (m?.index ?? 0) + 10))}`,
  );
}

describe('CLI output: one sanitizer, bounded fields, quiet on a closed pipe (issue 13 item 4)', function () {
  before(() => assert.ok(existsSync(cli), `${cli} is missing: run npm run build first`));

  const commands: string[][] = [
    ['tree', hostile],
    ['tree', hostile, '--estimator', 'chars'],
    ['context', hostile],
    ['context', hostile, '--leaf', 'u1'],
    ['summary', hostile],
    ['plan-compaction', hostile],
    ['plan-branch', hostile, '--to', 'u1'],
    ['summary', hostile, '--entry', 'x\u001b[1m'],
    ['tree', '/no/such/\u001b]52;c;cHduZWQ=\u0007\u202edir'],
  ];
  for (const args of commands) {
    it(`${args[0]} ${args.slice(2).join(' ')}: no raw control or bidi character on stdout or stderr, text and --json`, async () => {
      const text = await arbor(args);
      assert.ok(text.stdout.length + text.stderr.length > 0);
      assertSafe('stdout', text.stdout);
      assertSafe('stderr', text.stderr);
      const json = await arbor([...args, '--json']);
      assertSafe('--json stdout', json.stdout);
      assertSafe('--json stderr', json.stderr);
      if (json.code === 0) JSON.parse(json.stdout);
    });
  }

  it('--json is exact: the hostile strings come back unchanged when parsed', async () => {
    const tree = JSON.parse((await arbor(['tree', hostile, '--json'])).stdout);
    const lines = readFileSync(hostile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const label = lines.find((l) => l.type === 'label');
    assert.equal(tree.labels.u1, label.label);
    assert.deepEqual(
      tree.entries.map((e: { id: string }) => e.id),
      lines.slice(1).map((l) => l.id),
    );
    const summary = JSON.parse((await arbor(['summary', hostile, '--json'])).stdout);
    assert.equal(summary.text, lines.find((l) => l.type === 'compaction').summary);
  });

  it('text mode shows escapes visibly and cuts labels like previews', async () => {
    const out = (await arbor(['tree', hostile, '--estimator', 'chars'])).stdout;
    assert.match(out, /hello \\u001B\]52;c;/);
    assert.match(out, /\[lbl\\u202Eevil\\u001B\[2J(?:😀)+…\]/);
    for (const line of out.split('\n')) assert.ok([...line].length < 400, line);
  });

  it('`arbor tree … | head -1` exits 0 without a word on stderr', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-pipe-'));
    try {
      const file = path.join(dir, 'wide.jsonl');
      generateTreeSession({ file, entries: 30_000, branchEvery: 50 });
      for (const flags of ['', '--json', '--estimator chars']) {
        const r = spawnSync(
          'bash',
          ['-c', `set -o pipefail; "${process.execPath}" "${cli}" tree "${file}" ${flags} | head -1 >/dev/null`],
          { encoding: 'utf8' },
        );
        assert.equal(r.stderr, '', `${flags}: ${r.stderr}`);
        assert.equal(r.status, 0, flags);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('shortField and sanitizeOutput', () => {
  const unit = fc.oneof(
    fc.constantFrom('\u001b', '\u202e', '😀', '\ud800', '\udc00', 'a', ' ', '\n', '\u009b', '\u0000', '\u2066'),
    fc.string({ maxLength: 2 }),
  );
  const raw = fc.array(unit, { maxLength: 60 }).map((a) => a.join(''));

  it('never cuts inside an escape or a surrogate pair, stays within its width, and leaves nothing raw', () => {
    fc.assert(
      fc.property(raw, fc.integer({ min: 2, max: 50 }), (text, max) => {
        const s = shortField(text, max);
        assertSafe('shortField', s);
        assert.ok(!/\n/.test(s));
        const body = s.endsWith('…') ? s.slice(0, -1) : s;
        // Every escape is whole: `\u` followed by four hex digits (checked when the text has no backslash of its own:
        // one just before an escape, as in "\\" + ESC + "u", reads as a cut escape once the whole one is removed).
        if (!text.includes('\\')) assert.equal(body.replace(/\\u[0-9A-F]{4}/g, '').includes('\\u'), false);
        const width = [...body.replace(/\\u[0-9A-F]{4}/g, '123456')].length + (s.endsWith('…') ? 1 : 0);
        assert.ok(width <= max, `${JSON.stringify(s)} is ${width} wide, max ${max}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('cuts plain text at its length and a line with a pair or an escape by what is shown', () => {
    assert.equal(shortField('a'.repeat(40), 40), 'a'.repeat(40));
    assert.equal(shortField('a'.repeat(41), 40), `${'a'.repeat(39)}…`);
    assert.equal(shortField('é'.repeat(41), 40), `${'é'.repeat(39)}…`);
    assert.equal(shortField('😀'.repeat(40), 40), '😀'.repeat(40)); // 80 code units, 40 characters
    assert.equal(shortField(`${'a'.repeat(30)}\u001b${'b'.repeat(20)}`, 40), `${'a'.repeat(30)}\\u001B${'b'.repeat(3)}…`);
    assert.equal(shortField('', 0), '');
    assert.equal(shortField('ab', 0), '…');
  });

  it('keeps JSON exact: a sanitized JSON text parses to the same value', () => {
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 5 }), (values) => {
        const text = sanitizeOutput(JSON.stringify({ values }, null, 2));
        assertSafe('json', text);
        assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify({ values })));
      }),
      { numRuns: 1000 },
    );
  });
});
