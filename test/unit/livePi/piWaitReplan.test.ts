import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { arbor, cli, type Run } from '../../support/builtCli';
import type { FakeProviderServer } from '../../support/fakeProvider';
import { PiWorkspace, fakeModelForPi, fileEntries, someHistory } from '../../support/pi/piWorkspace';

/**
 * Issue 36 item 1, the CLI, with the real Pi 1.6 in RPC mode and Arbor's bridge: `compact` / `navigate` asked while
 * Pi works wait for it (`--pi-wait`), read Pi's turn, plan again at Pi's new leaf, and go on only when the plan is
 * the one asked for (the same cut, the same jump); otherwise they say what changed and write nothing.
 */
describe('--pi-wait: planned again once Pi stops, written only if it is what was asked (the real Pi 1.6)', function () {
  let fake: FakeProviderServer;
  let w: PiWorkspace;
  const folders: string[] = [];
  const entries = () => fileEntries(w.file);

  before(async function () {
    fake = await fakeModelForPi('Done: I looked at it and changed nothing.');
  });
  after(async () => {
    await fake?.stop();
  });
  beforeEach(async () => {
    w = new PiWorkspace(fake.openaiBaseURL);
    // Outside the agent folder: Pi 1.6 moves a session file it finds in its agent folder into its sessions folder.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi-wait-'));
    folders.push(dir);
    w.file = path.join(dir, 'session.jsonl');
    const r = await arbor(['pi-bridge', 'install', '--json'], { PI_CODING_AGENT_DIR: w.agentDir });
    assert.equal(r.code, 0, r.stderr);
  });
  afterEach(async () => {
    fake.release();
    await w.dispose();
    for (const f of folders.splice(0)) fs.rmSync(f, { recursive: true, force: true });
  });

  /** Pi starts a turn whose answer the fake model holds back until `fake.release()`: Pi is busy until then. */
  async function busyTurn(prompt: string, answer: string): Promise<void> {
    fake.script({ type: 'held', text: answer });
    const asked = fake.requests.length;
    await w.pi!.command('prompt', { message: prompt });
    await fake.waitForRequests(asked + 1);
  }

  /** `arbor ARGS` started while Pi works; Pi's turn is let go once arbor says it waits for Pi; resolves when arbor exits. */
  async function askWhileBusy(args: string[]): Promise<Run> {
    const child = spawn(process.execPath, [cli, ...args, '--pi-wait', '60'], {
      env: { ...process.env, PI_CODING_AGENT_DIR: w.agentDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
    const settled = w.pi!.seen;
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        if (/Pi \(pid \d+\) is working; Arbor will plan when it stops/.test(stderr)) resolve();
      });
      void exited.then(() => reject(new Error(`arbor exited before it waited for Pi: ${stderr}`)));
    });
    fake.release();
    await w.pi!.waitFor((r) => r.type === 'agent_settled', settled);
    const code = await exited;
    return { code, stdout, stderr };
  }

  it("compact: Pi's turn moved the cut, so nothing is written and the message says both cuts", async () => {
    const p = await w.startPi();
    await someHistory(p, 4);
    const before = entries().length;
    await busyTurn(`A long task. ${'Some more detail here. '.repeat(40)}`, `Here is a long answer. ${'x'.repeat(3000)}`);
    const r = await askWhileBusy(['compact', w.file]);
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /was working when the compaction was asked; its turn moved its leaf from \w+ to \w+/);
    assert.match(r.stderr, /\(keeping from entry \w+\) is now another \(keeping from entry \w+\)\. Nothing was written\./);
    const after = entries();
    assert.equal(after.length, before + 2, "only Pi's own turn (its prompt and answer) was written");
    assert.deepEqual(
      after.filter((e) => e.type === 'compaction'),
      [],
    );
  });

  it("compact: Pi's short turn left the cut where it was, so the compaction is written through Pi at Pi's new leaf", async () => {
    const p = await w.startPi();
    await someHistory(p, 4);
    await busyTurn('ok', 'Fine.');
    const r = await askWhileBusy(['compact', w.file, '--json']);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout) as { via: string; entry: { id: string; parentId: string } };
    assert.equal(out.via, 'pi');
    const all = entries();
    const last = all[all.length - 1];
    assert.equal(last.type, 'compaction');
    assert.equal(last.id, out.entry.id);
    const answer = all[all.length - 2];
    assert.equal((answer.message as { role: string }).role, 'assistant', "the compaction goes under Pi's answer, its new leaf");
    assert.equal(last.parentId, answer.id);
  });

  it("navigate: the jump asked while Pi works is made from Pi's new leaf once it stops (Pi's turn grows the branch left behind)", async () => {
    const p = await w.startPi();
    await someHistory(p, 3);
    const target = String(entries().find((e) => e.type === 'message' && (e.message as { role: string }).role === 'assistant')!.id);
    const size = fs.statSync(w.file).size;
    await busyTurn('Go on.', 'Going on.');
    const r = await askWhileBusy(['navigate', w.file, '--to', target, '--json']);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout) as { moved: boolean; newLeafId: string; via: string; entries: unknown[] };
    assert.equal(out.moved, true);
    assert.equal(out.via, 'pi');
    assert.equal(out.newLeafId, target);
    assert.deepEqual(out.entries, [], 'a move without a summary writes nothing: Pi holds its leaf in memory');
    assert.ok(fs.statSync(w.file).size > size, "Pi's own turn was written");
    // Pi's next prompt goes under the target: the jump reached Pi's memory after its turn.
    await p.prompt('From here.');
    const next = entries().at(-2)!;
    assert.equal(next.parentId, target);
  });
});
