// Issue 21 item 1: every command's parser and help come from one definition; --help, --version, Arbor's own usage errors.
import * as assert from 'node:assert/strict';
import { promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { commands } from '../../../src/cli/commands';
import { parseWith, usageLine, type CommandSpec } from '../../../src/cli/commandSpec';
import { repoRoot } from '../../support/fixtures';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The option names a help text lists (its "options:" section). */
function listedOptions(help: string): string[] {
  const section = help.slice(help.indexOf('\noptions:\n'), help.search(/\nexamples?:\n/));
  return [...section.matchAll(/^ {2}(?:-h, )?--([a-z][a-z-]*)/gm)].map((m) => m[1]);
}

/** Arguments that satisfy a command's positionals (a file that does not exist: the command fails after parsing). */
function positionalsFor(spec: CommandSpec, missing: string): string[] {
  if (spec.name === 'search') return [missing, 'query'];
  return spec.positionals.filter((p) => !p.optional).map(() => missing);
}

describe('arbor command definitions (--help, --version, usage errors)', function () {
  let dir: string;
  let missing: string;
  const savedEnv = { ...process.env };
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-spec-'));
    missing = path.join(dir, 'no-such-session.jsonl');
    // Commands that list sessions look in an empty agent folder, never the user's.
    process.env.PI_CODING_AGENT_DIR = path.join(dir, 'agent');
    delete process.env.PI_CODING_AGENT_SESSION_DIR;
  });
  after(async () => {
    process.env = savedEnv;
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('covers the commands of the README table', () => {
    assert.deepEqual([...commands.keys()].sort(), [
      'check-summary',
      'compact',
      'context',
      'export',
      'files',
      'label',
      'navigate',
      'pi-bridge',
      'plan-branch',
      'plan-compaction',
      'restore',
      'search',
      'sessions',
      'summary',
      'tree',
      'upgrade',
    ]);
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    for (const name of commands.keys()) assert.ok(readme.includes(`| \`arbor ${name}`), `README's table lists arbor ${name}`);
  });

  for (const [name, { spec }] of commands) {
    it(`${name}: --help and -h exit 0 with its usage, exactly the options the parser accepts, and an example`, async () => {
      for (const flag of ['--help', '-h']) {
        const r = await run([name, flag]);
        assert.equal(r.code, 0, r.err);
        assert.equal(r.err, '');
        assert.ok(r.out.startsWith(`usage: ${usageLine(spec)}\n`), r.out);
        assert.deepEqual(listedOptions(r.out).sort(), [...Object.keys(spec.options), 'help'].sort());
        assert.match(r.out, new RegExp(`\\nexamples?:\\n {2}arbor ${name}(\\s|$)`));
      }
      // Help wins wherever it is, even with arguments missing or wrong.
      assert.equal((await run([name, '--bogus', '-h'])).code, 0);

      // Every listed option gets past the parser: whatever fails then, it is not the option.
      for (const [option, o] of Object.entries(spec.options)) {
        const args = [...positionalsFor(spec, missing), `--${option}`, ...(o.type === 'string' ? ['1'] : [])];
        if (spec.name === 'search' && (option === 'cwd' || option === 'all')) args.splice(0, 1);
        for (const [other, p] of Object.entries(spec.options)) if (p.required && other !== option) args.push(`--${other}`, 'x');
        const r = await run([name, ...args]);
        assert.doesNotMatch(r.err, /unknown option|takes a value|takes no value/, `${name} --${option}: ${r.err}`);
      }
      // Anything else is Arbor's own usage error: the option named, the command's usage, exit 2.
      const bad = await run([name, ...positionalsFor(spec, missing), '--no-such-option']);
      assert.equal(bad.code, 2);
      assert.equal(bad.out, '');
      assert.match(bad.err, new RegExp(`^arbor: ${name}: unknown option "--no-such-option"\\nusage: arbor ${name} `));
      assert.doesNotMatch(bad.err, /as in '-- /, "not Node's parser text");
    });
  }

  it('--version prints the package version; arbor --help and arbor help CMD', async () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const v = await run(['--version']);
    assert.deepEqual([v.code, v.out], [0, `arbor ${version}`]);
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    for (const name of commands.keys()) assert.match(help.out, new RegExp(`^ {2}arbor ${name} +\\S`, 'm'));
    const one = await run(['help', 'restore']);
    assert.equal(one.code, 0);
    assert.ok(one.out.startsWith('usage: arbor restore FILE (--to ID'));
    const unknown = await run(['help', 'nope']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "nope"/);
  });

  it('argument errors name what is wrong: a missing FILE, an extra argument, a missing required option, a value on a switch', async () => {
    const cases: [string[], RegExp][] = [
      [['tree'], /^arbor: tree: missing FILE\nusage: arbor tree FILE/],
      [['tree', 'a.jsonl', 'b.jsonl'], /^arbor: tree: unexpected argument "b.jsonl"/],
      [['restore', 'a.jsonl'], /^arbor: restore: --to ID \(or --undo\) is required/],
      [['tree', 'a.jsonl', '--json=yes'], /^arbor: tree: --json takes no value/],
      [['tree', 'a.jsonl', '--estimator'], /^arbor: tree: --estimator takes a value \(chars\|tokenizer\)/],
      [['export', 'a.jsonl', '--json'], /^arbor: --json needs --out/],
      [['search', 'a.jsonl'], /^arbor: search: give FILE and QUERY/],
      [['search', '--cwd', '.', '--all', 'q'], /^arbor: search: --cwd and --all go alone/],
      [['tree', 'a.jsonl', `--${'x'.repeat(500)}`], /unknown option "--x{58}…"/],
    ];
    for (const [args, expected] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, expected);
    }
  });

  it('an option value that looks like a flag is a value, not a request for help', () => {
    const spec = commands.get('navigate')!.spec;
    const p = parseWith(spec, ['s.jsonl', '--to', 'x', '--summarize', '--instructions', '-h']);
    assert.equal(p.flags.instructions, '-h');
    assert.deepEqual(p.positionals, ['s.jsonl']);
    // After `--`, everything is a positional.
    assert.deepEqual(parseWith(commands.get('tree')!.spec, ['--', '--help']).positionals, ['--help']);
  });
});
