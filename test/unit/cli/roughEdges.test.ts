// Issue 21 item 7: the smaller rough edges of the CLI a new user meets.
import * as assert from 'node:assert/strict';
import { promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { counted } from '../../../src/engine/text/plural';
import { repoRoot } from '../../support/fixtures';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI rough edges (issue 21 item 7)', () => {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-edges-'));
  });
  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it('a binary file is named as binary, its bytes never printed (escaped or not)', async () => {
    const bin = path.join(dir, 'bin.jsonl');
    await fsp.writeFile(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0xff, 0xfe, 10, 1, 2, 3]));
    const r = await run(['tree', bin]);
    assert.equal(r.code, 2);
    assert.equal(r.err, `arbor: ${bin}:1: not a Pi session: the file is binary (its first line holds control bytes or is not UTF-8)`);
    const text = path.join(dir, 'text.jsonl');
    await fsp.writeFile(text, 'hello world, not json\n');
    const t = await run(['tree', text]);
    assert.equal(t.code, 2);
    assert.doesNotMatch(t.err, /hello world/, 'the line itself is not echoed');
    assert.match(t.err, /:1: not a Pi session: the first line is not valid JSON/);
  });

  it('export --out into a missing folder names the folder', async () => {
    const out = path.join(dir, 'missing', 'x.md');
    const r = await run(['export', path.join(repoRoot, 'samples', 'sample-session.jsonl'), '--out', out]);
    assert.equal(r.code, 2);
    assert.equal(r.err, `arbor: --out ${out}: the folder ${path.dirname(out)} does not exist`);
  });

  it('counts agree with their noun ("1 token", "1 entry")', () => {
    assert.deepEqual(
      [counted(1, 'token'), counted(2, 'token'), counted(1, 'entry', 'entries'), counted(0, 'entry', 'entries'), counted(12345, 'token')],
      ['1 token', '2 tokens', '1 entry', '0 entries', '12,345 tokens'],
    );
  });

  it("the README links the Pi package the extension's hint names", () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    // continueInPi.ts imports vscode: its constant is read from the source.
    const PI_PACKAGE = /PI_PACKAGE = '([^']+)'/.exec(
      readFileSync(path.join(repoRoot, 'src', 'vscode', 'commands', 'continueInPi.ts'), 'utf8'),
    )![1];
    assert.ok(readme.includes(`https://www.npmjs.com/package/${PI_PACKAGE})`));
    assert.ok(!readme.includes('npmjs.com/package/@mariozechner'));
  });
});
