/**
 * Issue 20 item 3: no entry can disable a session. A value of the wrong type
 * anywhere in an entry (objects with toString/valueOf, arrays, numbers where
 * text belongs, null, 1e400) or nesting thousands of levels deep makes that
 * entry reported as invalid with its file and line (or its odd field
 * ignored); every command still works on the rest: exit 0, or 2 with a
 * message naming the file and line; never 1, a crash, "Cannot convert object
 * to primitive value" or "Maximum call stack size exceeded".
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath } from '../../support/fixtures';
import { runBuiltCli, builtCli } from '../../support/cliProcess';
import { runCli } from '../../../src/cli/main';
import { searchSession } from '../../../src/engine/search/searchSession';
import { peekSession } from '../../../src/engine/tree/sessionPeek';
import { sessionsDirFor } from '../../../src/engine/session/discovery';

const BASE_LINES = readFileSync(fixturePath('sessions', 'hostile', 'base.jsonl'), 'utf8')
  .trimEnd()
  .split('\n');
const CWD = (JSON.parse(BASE_LINES[0]) as { cwd: string }).cwd;
const CRASH =
  /Cannot convert object to primitive value|Maximum call stack size exceeded|is not a function|Cannot read properties of|Invalid string length|\bat .*\.js:\d+/;

/** Every command, with what it needs; the ones that write get a copy of their own. */
const COMMANDS: readonly (readonly string[])[] = [
  ['tree'],
  ['tree', '--json'],
  ['context'],
  ['context', '--json'],
  ['plan-compaction', '--keep-recent-tokens', '10'],
  ['plan-branch', '--to', 'e0000012'],
  ['compact', '--provider', 'offline', '--keep-recent-tokens', '10'],
  ['navigate', '--to', 'e0000012', '--summarize', '--provider', 'offline'],
  ['summary'],
  ['summary', '--entry', 'e0000018'],
  ['files'],
  ['export'],
  ['export', '--format', 'html'],
];

/** The hostile values put in place of a field; deep ones are described (built in the property: fast-check could not print them). */
type Hostile = { plain: unknown } | { depth: number; array: boolean };

const hostileValueArb: fc.Arbitrary<Hostile> = fc.oneof(
  fc
    .constantFrom<unknown>(
      { toString: 1 },
      { valueOf: 1 },
      { toString: {}, valueOf: [] },
      { toJSON: 1 },
      [],
      [1, 'x'],
      7,
      -0.5,
      true,
      null,
      '',
      'text',
    )
    .map((plain) => ({ plain })),
  fc.record({ depth: fc.constantFrom(300, 5000), array: fc.boolean() }),
);

/** A hostile value's JSON text (deep ones built as text: JSON.stringify itself overflows on them). */
function hostileJson(h: Hostile): string {
  if ('plain' in h) return JSON.stringify(h.plain);
  const [open, close, leaf] = h.array ? ['[', ']', '1'] : ['{"a":', '}', '{"toString":1}'];
  return open.repeat(h.depth) + leaf + close.repeat(h.depth);
}

/** Every path to a value in a JSON value (keys and indexes), the value itself excluded. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([...prefix, i]), pathsOf(v, [...prefix, i], out)));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) (out.push([...prefix, k]), pathsOf(v, [...prefix, k], out));
  return out;
}

const BASE_PATHS = BASE_LINES.map((l) => pathsOf(JSON.parse(l)).filter((p) => !(p.length === 1 && (p[0] === 'type' || p[0] === 'id'))));

interface Mutation {
  line: number;
  pathPick: number;
  value: Hostile;
  addField: boolean;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  line: fc.integer({ min: 1, max: BASE_LINES.length - 1 }),
  pathPick: fc.nat(),
  value: hostileValueArb,
  addField: fc.boolean(),
});

/** The base session with each mutation applied: a field's value replaced (or a new field with a known name added). */
function mutatedText(mutations: readonly Mutation[]): string {
  const entries = BASE_LINES.map((l) => JSON.parse(l) as Record<string, unknown>);
  const texts: string[] = [];
  for (const m of mutations) {
    const entry = entries[m.line];
    // Paths of the entry as in the base file (an earlier mutation may have put a deep value there: not walked).
    const paths = BASE_PATHS[m.line];
    const p = paths[m.pathPick % paths.length];
    let holder: any = entry;
    for (const k of p.slice(0, -1)) if (typeof holder === 'object' && holder !== null) holder = holder[k];
    if (typeof holder !== 'object' || holder === null) continue;
    const key =
      m.addField && !Array.isArray(holder)
        ? (['toString', 'valueOf', 'content', 'text', 'summary', 'usage'] as const)[m.pathPick % 6]
        : p[p.length - 1];
    // A marker, replaced by the value's text once the entry is written.
    holder[key] = `\u0000hostile${texts.length}`;
    texts.push(hostileJson(m.value));
  }
  return entries.map((e) => JSON.stringify(e).replace(/"\\u0000hostile(\d+)"/g, (_, k: string) => texts[Number(k)])).join('\n') + '\n';
}

interface Outcome {
  code: number;
  out: string;
  err: string;
}

/** Runs one CLI command in this process (the same code as the binary; far faster than a process per run). */
async function run(args: string[]): Promise<Outcome> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) });
  return { code, out, err };
}

function assertSurvived(what: string, r: Outcome, file: string): void {
  assert.ok(r.code === 0 || r.code === 2, `${what}: exit ${r.code}\n${r.err.slice(0, 2000)}`);
  assert.doesNotMatch(r.err, CRASH, `${what}: ${r.err.slice(0, 2000)}`);
  assert.doesNotMatch(r.out, /Cannot convert object to primitive value|Maximum call stack size exceeded/, what);
  if (r.code === 2)
    assert.ok(r.err.includes(`${file}:`) || r.err.includes(path.basename(file)), `${what}: exit 2 names the file\n${r.err.slice(0, 2000)}`);
}

async function everyCommand(dir: string, text: string, label: string): Promise<void> {
  const sessions = sessionsDirFor(CWD, { PI_CODING_AGENT_DIR: path.join(dir, 'agent') });
  await fsp.mkdir(sessions, { recursive: true });
  const file = path.join(sessions, 'session.jsonl');
  for (const args of COMMANDS) {
    await fsp.writeFile(file, text);
    assertSurvived(`${label}: arbor ${args[0]} ${args.slice(1).join(' ')}`, await run([args[0], file, ...args.slice(1)]), file);
  }
  const previous = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = path.join(dir, 'agent');
  try {
    assertSurvived(`${label}: arbor sessions`, await run(['sessions', '--cwd', CWD, '--json']), file);
  } finally {
    if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = previous;
  }
  await fsp.writeFile(file, text);
  for (const query of ['bug', 'a.txt', 'object']) await searchSession(file, { query, onHit: () => undefined });
  await peekSession(file);
}

describe('hostile entries: no value of the wrong type or depth disables a session (every command)', function () {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-hostile-'));
  });

  it('the base fixture is clean: every command exits 0', async () => {
    await everyCommand(dir, BASE_LINES.join('\n') + '\n', 'base');
  });

  for (const name of ['wrong-types.jsonl', 'deep-nesting.jsonl']) {
    it(`${name}: every command works on the rest; each hostile entry is reported with its file and line (built binary)`, async () => {
      assert.ok(existsSync(builtCli), 'run npm run build first');
      const file = path.join(dir, name);
      for (const args of COMMANDS) {
        await fsp.copyFile(fixturePath('sessions', 'hostile', name), file);
        const r = await runBuiltCli([args[0], file, ...args.slice(1)], { killAfterMs: 120_000 });
        assertSurvived(`arbor ${args.join(' ')}`, { code: r.code ?? 1, out: r.stdout, err: r.stderr }, file);
      }
      await fsp.copyFile(fixturePath('sessions', 'hostile', name), file);
      const tree = await runBuiltCli(['tree', file], { killAfterMs: 120_000 });
      assert.equal(tree.code, 0, tree.stderr);
      assert.match(tree.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5: message entry "e0000004": `));
      assert.match(tree.stdout, /e0000028/, 'the entries after the hostile ones are shown');
    });
  }

  it('fast-check: hostile values at any place of any entry, every command (in process)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { minLength: 1, maxLength: 3 }), async (mutations) => {
        await everyCommand(path.join(dir, `case${n++}`), mutatedText(mutations), JSON.stringify(mutations).slice(0, 300));
      }),
      { numRuns: Number(process.env.ARBOR_HOSTILE_RUNS ?? 40) },
    );
  });
});
