import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { arbor } from '../../support/builtCli';
import { startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { PiRpc, pi073Cli } from '../../support/pi/piRpc';
import { PiWorkspace } from '../../support/pi/piWorkspace';

/**
 * Issue 36 item 4: the real Pi 0.73.1 (`@mariozechner/pi-coding-agent`, on this Node 20) in RPC mode, with Arbor's
 * bridge installed in its agent folder. The bridge refuses it up front, naming the supported range; `pi-bridge
 * status` warns; and nothing of the bridge reaches the model (the fake provider's recorded requests) or the session.
 */
/** What of the bridge could show: its name, its command, its messages (the temporary folders' names hold "arbor" too). */
const BRIDGE_TRACE = /arbor-bridge|arbor's bridge|arbor bridge/i;

describe('the bridge in the real Pi 0.73.1 (older than the supported range)', function () {
  let fake: FakeProviderServer;
  let w: PiWorkspace;
  let pi: PiRpc | undefined;
  let dir: string;

  before(async () => {
    fake = await startFakeProvider();
    fake.setFallback({ type: 'text', text: 'Done: I looked at it and changed nothing.' });
    w = new PiWorkspace(fake.openaiBaseURL);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi073-'));
    w.file = path.join(dir, 'session.jsonl');
  });
  after(async () => {
    await pi?.stop();
    await w.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
    await fake?.stop();
  });

  it('is refused up front with the supported range; status warns; no trace of the bridge in the requests or the session', async () => {
    const install = await arbor(['pi-bridge', 'install', '--json'], { PI_CODING_AGENT_DIR: w.agentDir });
    assert.equal(install.code, 0, install.stderr);
    assert.ok(fs.existsSync(path.join(w.agentDir, 'extensions', 'arbor-bridge.js')));
    pi = new PiRpc({
      agentDir: w.agentDir,
      cwd: w.project,
      sessionFile: w.file,
      runtime: { node: process.execPath, cli: pi073Cli },
    });
    // The bridge's refusal, said by Pi's UI (in RPC mode an extension UI request) when the session starts.
    const refusal = await pi.waitFor((r) => r.type === 'extension_ui_request' && r.method === 'notify');
    assert.match(String(refusal.message), /Arbor's bridge does not work with Pi 0\.73\.1 \(it needs Pi >=1\.6\.0 <2\.0\.0\)/);
    assert.equal(refusal.notifyType, 'warning');
    for (let i = 1; i <= 2; i++) {
      const from = pi.seen;
      await pi.command('prompt', { message: `Request ${i}: explain file${i}.ts to me.` });
      await pi.waitFor((r) => r.type === 'agent_end', from);
    }
    assert.ok(fake.requests.length >= 2, 'Pi asked the model');
    for (const request of fake.requests)
      assert.doesNotMatch(request.raw, BRIDGE_TRACE, "nothing of the bridge (its command, a tool, a prompt) reaches Pi's model");
    const session = fs.readFileSync(w.file, 'utf8');
    assert.match(session, /Request 2: explain file2\.ts/);
    assert.doesNotMatch(session, BRIDGE_TRACE, 'nothing of the bridge is written to the session');
    // No bridge announced itself; status warns that this Pi cannot be worked through.
    const registry = path.join(w.agentDir, 'arbor-bridge');
    assert.deepEqual(fs.existsSync(registry) ? fs.readdirSync(registry).filter((n) => /^\d+-\w+\.json$/.test(n)) : [], []);
    const status = await arbor(['pi-bridge', 'status', w.file], { PI_CODING_AGENT_DIR: w.agentDir });
    // It names the version and the range: installing the bridge or /reload would not help, so it does not advise them.
    assert.match(status.stdout, new RegExp(`Pi 0\\.73\\.1, refused by the bridge \\(it needs Pi >=1\\.6\\.0 <2\\.0\\.0\\), pid ${pi.pid}`));
    assert.match(status.stdout, /Arbor will not write to .* while it runs \(update Pi to >=1\.6\.0 <2\.0\.0, or quit it\)/);
    assert.doesNotMatch(status.stdout, /install the bridge|\/reload/);
    const json = await arbor(['pi-bridge', 'status', w.file, '--json'], { PI_CODING_AGENT_DIR: w.agentDir });
    const pis = (JSON.parse(json.stdout) as { pis: { pid: number; refusedVersion?: string }[] }).pis;
    assert.equal(pis.find((x) => x.pid === pi!.pid)?.refusedVersion, '0.73.1');
    // The refusal record goes with the Pi.
    const refusalFile = path.join(registry, `refused-${pi.pid}.json`);
    assert.ok(fs.existsSync(refusalFile));
    await pi.stop();
    pi = undefined;
    assert.equal(fs.existsSync(refusalFile), false, 'the refusal record is removed when Pi exits');
  });
});
