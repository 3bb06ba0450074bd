/**
 * Sessions really written by Pi 1.6 for the summary evaluation (issue 32): for every scenario of
 * scripts/piScenarios/, a scratch stockroom project is made, the real Pi 1.6 (`pi --mode rpc`, on Node 22+)
 * runs in it against the local fake model server (127.0.0.1 only) whose answers are scripted step by step,
 * Pi's tools run for real, and the session Pi wrote is copied to test/fixtures/pi-written/<name>.jsonl with a
 * <name>.meta.json beside it (Pi version, settings, what was scripted, each step's entry ids).
 *
 * Usage: node out/scripts/piScenarioSessions.js [--only NAME[,NAME...]] [--out DIR]
 * Entry ids and timestamps are Pi's own, so every run gives new ones; the content is the same. The scratch
 * project's absolute path is replaced by /home/user/stockroom everywhere in the session (header cwd included), and
 * the Pi package folder named in its system prompt by PI_PACKAGE_PATH.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeProvider, type FakeProviderServer } from '../test/support/fakeProvider';
import { makeAgentFolder, node22, pi16Package, PiRpc } from '../test/support/pi/piRpc';
import { SCENARIOS } from './piScenarios';
import { extensionSource } from './piScenarios/stockroom';
import type { Scenario, Step, StepEntry } from './piScenarios/types';

const repoRoot = path.resolve(__dirname, '..', '..');
export const PROJECT_PATH = '/home/user/stockroom';
/** Where Pi's system prompt says its docs are: this checkout's node_modules, written as a global install. */
export const PI_PACKAGE_PATH = '/usr/local/lib/node_modules/@earendil-works/pi-coding-agent';
const STEP_TIMEOUT_MS = 60000;

/** A record of Pi's (session entry, RPC event): read field by field, as Pi writes it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;
type Entry = Loose & { id: string; type: string; parentId: string | null };

export interface StepRecord {
  label: string;
  kind: string;
  /** The prompt, command or instructions the step sent. */
  input: string | null;
  userEntryId: string | null;
  finalAssistantEntryId: string | null;
  newEntryIds: string[];
  leafIdBefore: string | null;
  leafIdAfter: string | null;
  requests: { kind: 'agent' | 'summary'; status: string }[];
  scripted: Step['answers'];
}

function withTimeout<T>(p: Promise<T>, what: string, ms = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Everything a step recorded that its answers may restate: tool results, bash output, extension messages. */
function recordedText(entries: Entry[]): string {
  const text = (c: unknown): string =>
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c.map((b: { text?: string }) => (typeof b?.text === 'string' ? b.text : '')).join('\n')
        : '';
  return entries
    .map((e) => {
      if (e.type === 'custom_message') return text(e.content);
      if (e.type !== 'message') return '';
      const m = e.message;
      if (m.role === 'toolResult') return text(m.content);
      if (m.role === 'bashExecution') return `${m.command}\n${m.output}`;
      return '';
    })
    .join('\n');
}

class ScenarioRun {
  readonly steps: StepRecord[] = [];
  private readonly known = new Set<string>();
  private leafId: string | null = null;

  constructor(
    private readonly pi: PiRpc,
    private readonly fake: FakeProviderServer,
  ) {}

  private async entries(): Promise<{ entries: Entry[]; leafId: string | null }> {
    return (await this.pi.command('get_entries')) as { entries: Entry[]; leafId: string | null };
  }

  private target(to: StepEntry): string {
    const s = this.steps.find((r) => r.label === to.step);
    const id = s && (to.entry === 'user' ? s.userEntryId : s.finalAssistantEntryId);
    if (!id) throw new Error(`no ${to.entry} entry in step ${to.step}`);
    return id;
  }

  async run(step: Step): Promise<StepRecord> {
    const { pi, fake } = this;
    const requestsBefore = fake.requests.length;
    fake.script(...step.answers);
    const from = pi.seen;
    const settled = () =>
      withTimeout(
        pi.waitFor((r) => r.type === 'agent_settled', from),
        `${step.label}: agent_settled`,
      );
    const a = step.action;
    let kind: string;
    let input: string | null = null;
    if ('prompt' in a) {
      kind = 'prompt';
      input = a.prompt;
      await withTimeout(pi.prompt(a.prompt), `${step.label}: prompt`);
    } else if ('abortPrompt' in a) {
      kind = 'abortedPrompt';
      input = a.abortPrompt;
      await pi.command('prompt', { message: a.abortPrompt });
      let deltas = 0;
      const streaming = (r: Loose) =>
        r.type === 'message_update' && r.assistantMessageEvent?.type === 'text_delta' && ++deltas >= a.afterDeltas;
      await withTimeout(pi.waitFor(streaming, from), `${step.label}: ${a.afterDeltas} text deltas`);
      await withTimeout(pi.command('abort'), `${step.label}: abort`);
      await settled();
    } else if ('bash' in a) {
      kind = 'userBash';
      input = a.bash;
      await withTimeout(pi.command('bash', { command: a.bash }), `${step.label}: bash`);
    } else if ('command' in a) {
      kind = a.triggersTurn ? 'extensionCommandTriggeringTurn' : 'extensionCommand';
      input = a.command;
      await pi.command('prompt', { message: a.command });
      if (a.triggersTurn) await settled();
    } else if ('compact' in a) {
      kind = 'compaction';
      input = a.compact.customInstructions ?? null;
      const fields = a.compact.customInstructions ? { customInstructions: a.compact.customInstructions } : {};
      await withTimeout(pi.command('compact', fields), `${step.label}: compact`);
    } else {
      kind = a.navigate.summarize ? 'navigationWithSummary' : 'navigation';
      const o = { ...a.navigate, targetId: this.target(a.navigate.to), to: undefined };
      input = JSON.stringify({ targetId: o.targetId, summarize: o.summarize, customInstructions: o.customInstructions, label: o.label });
      await pi.command('prompt', { message: `/goto ${input}` });
      const isGoto = (r: Loose) => r.type === 'extension_ui_request' && r.method === 'notify' && /^goto-/.test(String(r.message));
      const note = await withTimeout(pi.waitFor(isGoto, from), `${step.label}: navigation`);
      if (!String(note.message).startsWith('goto-done')) throw new Error(`${step.label}: ${String(note.message)}`);
    }

    if (fake.pending) throw new Error(`${step.label}: ${fake.pending} scripted answer(s) were not asked for`);
    const requests = fake.requests.slice(requestsBefore);
    if (requests.some((r) => r.behaviour === 'unscripted')) throw new Error(`${step.label}: Pi asked for more answers than scripted`);
    const { entries, leafId } = await this.entries();
    const fresh = entries.filter((e) => !this.known.has(e.id));
    for (const e of fresh) this.known.add(e.id);
    const text = recordedText(fresh);
    for (const want of step.expect ?? [])
      if (!text.includes(want)) throw new Error(`${step.label}: Pi's outputs do not contain ${JSON.stringify(want)}; they were:\n${text}`);
    const messages = fresh.filter((e) => e.type === 'message');
    const user = messages.find((e) => e.message.role === 'user');
    const final = [...messages].reverse().find((e) => e.message.role === 'assistant');
    const wantStop = step.stopReason ?? (final ? 'stop' : undefined);
    if (final?.message.stopReason !== wantStop)
      throw new Error(
        `${step.label}: last assistant stopReason ${final?.message.stopReason} (${final?.message.errorMessage ?? ''}), expected ${wantStop}`,
      );
    const record: StepRecord = {
      label: step.label,
      kind,
      input,
      userEntryId: user?.id ?? null,
      finalAssistantEntryId: final?.id ?? null,
      newEntryIds: fresh.map((e) => e.id),
      leafIdBefore: this.leafId,
      leafIdAfter: leafId,
      requests: requests.map((r) => ({
        kind: Array.isArray(r.body?.tools) && r.body.tools.length ? 'agent' : 'summary',
        status: r.behaviour,
      })),
      scripted: step.answers,
    };
    this.leafId = leafId;
    this.steps.push(record);
    return record;
  }
}

/**
 * The probe file beside a regenerated session names entries by id: every id of the previous run's steps becomes the
 * id at the same place of the same step in the new run (steps that made a different number of entries are left,
 * and reported). Returns the ids of the probe file that could not be carried over.
 */
function carryProbeIds(outDir: string, name: string, oldSteps: StepRecord[] | null, newSteps: StepRecord[]): string[] {
  const probes = path.join(outDir, `${name}.probes.json`);
  if (!oldSteps || !fs.existsSync(probes)) return [];
  const map = new Map<string, string>();
  for (const old of oldSteps) {
    const now = newSteps.find((s) => s.label === old.label);
    if (now && now.newEntryIds.length === old.newEntryIds.length) old.newEntryIds.forEach((id, i) => map.set(id, now.newEntryIds[i]));
  }
  const lost: string[] = [];
  const text = fs.readFileSync(probes, 'utf8').replace(/"(leafId|fromId|targetId)": "([0-9a-f]{8})"/g, (all, key: string, id: string) => {
    const now = map.get(id);
    if (!now) lost.push(id);
    return now ? `"${key}": "${now}"` : all;
  });
  fs.writeFileSync(probes, text);
  return lost;
}

function entryCounts(entries: Entry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of entries) {
    const k = e.type === 'message' ? `message:${e.message.role}` : e.type;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

export async function generate(s: Scenario, outDir: string): Promise<string> {
  const fake = await startFakeProvider();
  fake.usageFromRequest = true;
  const agent = makeAgentFolder(fake.openaiBaseURL, { keepRecentTokens: s.keepRecentTokens ?? 20000 });
  const settingsFile = path.join(agent.dir, 'settings.json');
  const settings = {
    ...JSON.parse(fs.readFileSync(settingsFile, 'utf8')),
    retry: { enabled: true, maxRetries: 2, baseDelayMs: 200, provider: { maxRetries: 0 } },
    cacheWarming: 'off',
  };
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  if (s.extension) {
    fs.mkdirSync(path.join(agent.dir, 'extensions'));
    fs.writeFileSync(path.join(agent.dir, 'extensions', 'stockroom-monitor.js'), extensionSource(s.extension));
  }
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-'));
  for (const [rel, content] of Object.entries(s.files)) {
    const file = path.join(project, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 });
  }
  const sessionFile = path.join(agent.dir, 'session.jsonl');
  const pi = new PiRpc({ agentDir: agent.dir, cwd: project, sessionFile });
  let run: ScenarioRun;
  try {
    await withTimeout(pi.state(), 'Pi start');
    run = new ScenarioRun(pi, fake);
    for (const step of s.steps) await run.run(step);
  } catch (e) {
    process.stderr.write(`Pi stderr:\n${pi.stderr.slice(-4000)}\n`);
    throw e;
  } finally {
    await pi.stop();
    await fake.stop();
  }
  try {
    const inJson = (p: string) => JSON.stringify(p).slice(1, -1);
    const written = fs.readFileSync(sessionFile, 'utf8');
    const occurrences = written.split(inJson(project)).length - 1;
    const packageOccurrences = written.split(inJson(pi16Package)).length - 1;
    const text = written.split(inJson(project)).join(inJson(PROJECT_PATH)).split(inJson(pi16Package)).join(inJson(PI_PACKAGE_PATH));
    const entries = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Entry);
    const header = entries[0];
    fs.mkdirSync(outDir, { recursive: true });
    const out = path.join(outDir, `${s.name}.jsonl`);
    fs.writeFileSync(out, text);
    const body = entries.slice(1);
    const metaFile = path.join(outDir, `${s.name}.meta.json`);
    const oldSteps = fs.existsSync(metaFile) ? (JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { steps: StepRecord[] }).steps : null;
    const pkg = JSON.parse(fs.readFileSync(path.join(pi16Package, 'package.json'), 'utf8')) as { version: string };
    const meta = {
      session: path.relative(repoRoot, out),
      about: s.about,
      generatedBy: 'scripts/piScenarioSessions.ts (node out/scripts/piScenarioSessions.js --only ' + s.name + ')',
      piVersion: pkg.version,
      node: execFileSync(node22(), ['--version'], { encoding: 'utf8' }).trim(),
      mode: 'pi --mode rpc --session FILE --provider fake --model fake-model',
      model: { provider: 'fake', id: 'fake-model', api: 'openai-completions', server: 'test/support/fakeProvider (127.0.0.1)' },
      settings,
      extension: s.extension
        ? { file: 'stockroom-monitor.js (scripts/piScenarios/stockroom.ts extensionSource)', config: s.extension }
        : null,
      projectFiles: Object.keys(s.files).sort(),
      cwdRewrite: { from: '<temporary project folder>', to: PROJECT_PATH, occurrences },
      piPackageRewrite: {
        from: '<checkout>/node_modules/@earendil-works/pi-coding-agent',
        to: PI_PACKAGE_PATH,
        occurrences: packageOccurrences,
      },
      sessionId: header.id,
      leafIdAtEnd: run.steps[run.steps.length - 1]?.leafIdAfter ?? null,
      entryCounts: entryCounts(body),
      compactions: body
        .filter((e) => e.type === 'compaction')
        .map((e) => ({ entryId: e.id, firstKeptEntryId: e.firstKeptEntryId, tokensBefore: e.tokensBefore })),
      branchSummaries: body
        .filter((e) => e.type === 'branch_summary')
        .map((e) => ({ entryId: e.id, parentId: e.parentId, fromId: e.fromId })),
      steps: run.steps,
    };
    fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
    const lost = carryProbeIds(outDir, s.name, oldSteps, run.steps);
    if (lost.length) process.stderr.write(`${s.name}.probes.json: ids not carried over (steps changed): ${lost.join(', ')}\n`);
    return out;
  } finally {
    agent.remove();
    fs.rmSync(project, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
  const outDir = args.includes('--out')
    ? path.resolve(args[args.indexOf('--out') + 1])
    : path.join(repoRoot, 'test', 'fixtures', 'pi-written');
  if (!fs.existsSync(node22()))
    throw new Error(`Pi 1.6 needs Node 22+: ${node22()} is missing (bash scripts/vscode-test/install.sh, or ARBOR_NODE22_BIN)`);
  const chosen = SCENARIOS.filter((s) => !only || only.includes(s.name));
  if (only && chosen.length !== only.length)
    throw new Error(`unknown scenario in ${only.join(',')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  for (const s of chosen) {
    const out = await generate(s, outDir);
    process.stdout.write(`${s.name}: ${path.relative(process.cwd(), out)} (${fs.statSync(out).size} bytes)\n`);
  }
}

if (require.main === module)
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
