// Regenerates test/fixtures/agents/real/ from the real Claude Code and Codex CLIs (dev-only; `npm run agent-fixtures`).
// Installs the pinned packages into a cache folder outside the repository, drives each tool headless against
// scripts/agent-fixtures/fakeModel.mjs on 127.0.0.1 in a scratch project (HOME, CLAUDE_CONFIG_DIR and
// CODEX_HOME in a temporary folder), and copies the session files it wrote with the scratch paths made stable.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from './fakeModel.mjs';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
const STABLE_ROOT = '/tmp/arbor-fixture';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = process.env.ARBOR_AGENT_FIXTURES_OUT ?? path.join(repo, 'test', 'fixtures', 'agents', 'real');
const cache = process.env.ARBOR_AGENT_TOOLS ?? path.join(os.homedir(), '.cache', 'arbor-agent-tools', `cc-${CLAUDE_CODE_VERSION}-cx-${CODEX_VERSION}`);

function install() {
  const claude = path.join(cache, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');
  const codex = path.join(cache, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
  if (!existsSync(claude) || !existsSync(codex)) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(path.join(cache, 'package.json'), '{"name":"arbor-agent-tools","private":true}\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`, `@openai/codex@${CODEX_VERSION}`], { cwd: cache, stdio: 'inherit' });
  }
  return { claude, codex };
}

const root = mkdtempSync(path.join(os.tmpdir(), 'arbor-agents-'));
const home = path.join(root, 'home');
const proj = path.join(root, 'proj');
let cwd = proj;

function freshProject() {
  rmSync(proj, { recursive: true, force: true });
  mkdirSync(proj, { recursive: true });
  writeFileSync(path.join(proj, 'notes.txt'), 'hello world\nhello again\n');
  writeFileSync(path.join(proj, 'gone.txt'), 'to be deleted\n');
}

/** Runs one tool command to its end (asynchronously: the fake model answers from this process). */
async function run(bin, args, env) {
  const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGTERM'), 180_000);
  const status = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  const tail = output.trim().split('\n').slice(-2).join(' | ');
  console.log(`  ${path.basename(bin)} ${args.slice(-1)[0].slice(0, 60)} -> ${status}: ${tail.slice(0, 160)}`);
  if (status !== 0) throw new Error(`${path.basename(bin)} exited ${status}`);
  return output;
}

const baseEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  IS_SANDBOX: '1', // Claude Code refuses --dangerously-skip-permissions as root without it
};

async function claudeSessions(bin, port) {
  const env = {
    ...baseEnv,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: 'sk-ant-fake-fixture-key',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // A small window: the big turn's reported usage crosses it, and Claude Code compacts automatically mid-turn.
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: '100000',
  };
  const common = ['-p', '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5'];
  const id = '00000000-0000-4000-8000-00000000c1a1';
  freshProject();
  console.log('Claude Code: main session');
  await run(bin, [...common, '--session-id', id, '-n', 'fixture tasks', '[scene:read] read the notes'], env);
  await run(bin, [...common, '--resume', id, '[scene:parallel] read the notes and write out.txt at once'], env);
  await run(bin, [...common, '--continue', '[scene:replaceall] replace every hello with howdy'], env);
  await run(bin, [...common, '--resume', id, '[scene:fail] run a failing command'], env);
  await run(bin, [...common, '--resume', id, '--effort', 'high', '[scene:think] think it over'], env);
  await run(bin, [...common, '--resume', id, '[scene:subagent] ask a subagent to look around'], env);
  await run(bin, [...common, '--resume', id, '/compact keep the file names'], env);
  await run(bin, [...common, '--resume', id, '[scene:big] a long turn'], env);
  await run(bin, [...common, '--resume', id, '[scene:hello] say hello after the compaction'], env);
  console.log('Claude Code: fork');
  await run(bin, [...common, '--resume', id, '--fork-session', '-n', 'the fork', '[scene:hello] hello from the fork'], env);
  await claudeRewind(bin, { env: { ...env, CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: '1' }, common });
}

/**
 * A rewind, as Claude Code does it headless: `--rewind-files <prompt uuid>` restores the files to their state
 * before that prompt (file checkpointing on), and `--resume-session-at <assistant uuid>` goes on from an earlier
 * answer (the later turn stays in the file as an abandoned branch).
 */
async function claudeRewind(bin, { env, common }) {
  const id = '00000000-0000-4000-8000-00000000c1a2';
  freshProject();
  console.log('Claude Code: rewind');
  await run(bin, [...common, '--session-id', id, '-n', 'rewind fixture', '[scene:write_one] write version 1'], env);
  await run(bin, [...common, '--resume', id, '[scene:write_two] write version 2'], env);
  const file = walk(path.join(home, '.claude', 'projects')).find((f) => f.endsWith(`${id}.jsonl`));
  const recs = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const second = recs.find((r) => r.type === 'user' && JSON.stringify(r.message?.content).includes('[scene:write_two]'));
  const firstAnswer = recs.find((r) => r.type === 'assistant' && JSON.stringify(r.message?.content).includes('Wrote version 1.'));
  await run(bin, [...common, '--resume', id, '--rewind-files', second.uuid], env);
  const restored = readFileSync(path.join(proj, 'out.txt'), 'utf8');
  if (restored !== 'version 1\n') throw new Error(`--rewind-files left out.txt as ${JSON.stringify(restored)}`);
  await run(bin, [...common, '--resume', id, '--resume-session-at', firstAnswer.uuid, '[scene:hello] hello after the rewind'], env);
}

async function codexSessions(bin, port) {
  const codexHome = path.join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'model_auto_compact_token_limit = 50000',
      'check_for_update_on_startup = false',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "http://127.0.0.1:${port}/v1"`,
      'env_key = "FAKE_MODEL_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '[analytics]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  const env = { ...baseEnv, CODEX_HOME: codexHome, FAKE_MODEL_KEY: 'fake-fixture-key' };
  const exec = ['exec', '--skip-git-repo-check'];
  freshProject();
  console.log('Codex: main rollout');
  await run(bin, [...exec, '[scene:cx_shell] read the notes'], env);
  const sessionId = latestRollout(codexHome).match(/([0-9a-f-]{36})\.jsonl$/)[1];
  await run(bin, [...exec, 'resume', sessionId, '[scene:cx_patch] add, update and delete files'], env);
  await run(bin, [...exec, 'resume', sessionId, '[scene:cx_fail] run a failing command'], env);
  await run(bin, [...exec, '-c', 'model_reasoning_effort="high"', 'resume', sessionId, '[scene:cx_think] think harder'], env);
  await run(bin, [...exec, 'resume', sessionId, '[scene:cx_big] a long turn'], env);
  await run(bin, [...exec, 'resume', sessionId, '[scene:hello] say hello after the compaction'], env);
  console.log('Codex: fork');
  await run(bin, [...exec, 'fork', sessionId, '[scene:hello] hello from the fork'], env);
  console.log('Codex: manual compaction');
  await run(bin, [...exec, '[scene:cx_shell] show the notes, then compact by hand'], env);
  const manualId = latestRollout(codexHome).match(/([0-9a-f-]{36})\.jsonl$/)[1];
  await codexCompact(bin, env, manualId);
  await run(bin, [...exec, 'resume', manualId, '[scene:hello] say hello after the manual compaction'], env);
}

/**
 * Codex's /compact, headless: `codex app-server` (JSON-RPC lines on stdio) resumes the thread and starts a
 * compaction (`thread/compact/start`); done at the turn's `turn/completed`.
 */
async function codexCompact(bin, env, threadId) {
  const child = spawn(bin, ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let next = 0;
  const waiting = new Map();
  let done;
  const completed = new Promise((resolve) => (done = resolve));
  let buffered = '';
  child.stdout.on('data', (d) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const m = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (m.id !== undefined && !m.method) waiting.get(m.id)?.(m);
      else if (m.method === 'turn/completed') done();
    }
  });
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result)));
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  const timer = setTimeout(() => child.kill('SIGTERM'), 120_000);
  try {
    await call('initialize', { clientInfo: { name: 'arbor-agent-fixtures', version: '0' } });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'initialized' }) + '\n');
    await call('thread/resume', { threadId });
    await call('thread/compact/start', { threadId });
    await completed;
    console.log(`  codex app-server thread/compact/start ${threadId} -> done`);
  } finally {
    clearTimeout(timer);
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('close', resolve)));
  }
}

/** What Codex sent the model: each Responses request's input items (type, role, the start of their text). */
const codexRequests = [];
function recordRequest(wire, body) {
  if (wire !== 'openai' || !Array.isArray(body.input)) return;
  const text = (c) => (Array.isArray(c) ? c.map((b) => b?.text ?? '').join('\n') : typeof c === 'string' ? c : '');
  codexRequests.push({
    input: body.input.map((it) => ({ type: it.type, role: it.role, text: text(it.content).slice(0, 160) })),
  });
}

function latestRollout(codexHome) {
  const files = walk(path.join(codexHome, 'sessions')).filter((f) => f.endsWith('.jsonl'));
  files.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  return files.at(-1);
}

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** The scratch root, raw and in Claude Code's folder-name form, replaced by a stable one. */
function stable(text) {
  const dashed = (s) => s.replace(/[^a-zA-Z0-9]/g, '-');
  return text.split(root).join(STABLE_ROOT).split(dashed(root)).join(dashed(STABLE_ROOT));
}

function copyOut() {
  rmSync(out, { recursive: true, force: true });
  const copy = (from, to) => {
    for (const f of walk(from)) {
      if (!/\.(jsonl|json)$/.test(f)) continue;
      const target = path.join(to, stable(path.relative(from, f)));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, stable(readFileSync(f, 'utf8')));
    }
  };
  copy(path.join(home, '.claude', 'projects'), path.join(out, 'claude-code'));
  copy(path.join(home, '.codex', 'sessions'), path.join(out, 'codex'));
  writeFileSync(path.join(out, 'codex-requests.jsonl'), stable(codexRequests.map((r) => JSON.stringify(r)).join('\n') + '\n'));
  writeFileSync(
    path.join(out, 'versions.json'),
    JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, codex: CODEX_VERSION, scratchRoot: STABLE_ROOT }, null, 2) + '\n',
  );
}

const tools = install();
const server = await startFakeModel({ cwd: () => cwd, onRequest: recordRequest });
const port = server.address().port;
try {
  await claudeSessions(tools.claude, port);
  await codexSessions(tools.codex, port);
  copyOut();
  console.log(`wrote ${out}`);
} finally {
  server.close();
  if (!process.env.KEEP_SCRATCH) rmSync(root, { recursive: true, force: true });
  else console.log(`scratch kept: ${root}`);
}
