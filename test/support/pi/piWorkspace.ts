import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeAgentFolder, node22, PiRpc, type PiAgentFolder } from './piRpc';
import { startFakeProvider, type FakeProviderServer } from '../fakeProvider';

/**
 * One test's Pi world: a temporary agent folder declaring the fake provider
 * at `baseURL`, a project folder Pi runs in, the session file Pi is started
 * on, and that Pi once started. `dispose()` stops Pi and removes both folders.
 */
export class PiWorkspace {
  readonly agent: PiAgentFolder;
  readonly project: string;
  /** Pi's agent folder (a test may point it at another one before starting Pi). */
  agentDir: string;
  /** The session file Pi is started on (`--session`). */
  file: string;
  pi: PiRpc | undefined;

  constructor(baseURL: string) {
    this.agent = makeAgentFolder(baseURL, { keepRecentTokens: 200 });
    this.agentDir = this.agent.dir;
    this.project = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi-project-'));
    this.file = path.join(this.agent.dir, 'session.jsonl');
  }

  /** Starts Pi on `file` in `project` and waits until it answers (its extensions, the bridge among them, have started). */
  async startPi(): Promise<PiRpc> {
    this.pi = new PiRpc({ agentDir: this.agentDir, cwd: this.project, sessionFile: this.file });
    await this.pi.state();
    return this.pi;
  }

  async dispose(): Promise<void> {
    await this.pi?.stop();
    this.pi = undefined;
    this.agent.remove();
    fs.rmSync(this.project, { recursive: true, force: true });
  }
}

/** `n` prompts to Pi (each answered by the fake provider's fallback), long enough to be worth compacting. */
export async function someHistory(p: PiRpc, n: number): Promise<void> {
  for (let i = 1; i <= n; i++)
    await p.prompt(`Request number ${i}: please look at file${i}.ts and tell me what it does. ${'Some detail. '.repeat(40)}`);
}

/** The entries of a session file Pi wrote, parsed (the header too). */
export function fileEntries(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The fake model for a test with the real Pi 1.6 (answering `fallback` when nothing is scripted); fails when Pi's Node is missing. */
export async function fakeModelForPi(fallback: string): Promise<FakeProviderServer> {
  if (!fs.existsSync(node22())) throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing (scripts/vscode-test/install.sh)`);
  return (await startFakeProvider()).setFallback({ type: 'text', text: fallback });
}
