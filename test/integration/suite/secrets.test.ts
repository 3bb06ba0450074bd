// API keys live only in SecretStorage or the environment. A key set with Set API Key (or taken from
// OPENAI_API_KEY) goes to the provider, a fake one on 127.0.0.1 that fails with an error repeating the
// Authorization / x-api-key header; after Compact the key is in none of: the Arbor log (as written, and
// VS Code's log files on disk), the notifications shown, the settings files, the session file, the panel.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import type { Notification } from '../../../src/vscode/platform/notify';
import { ALL_KEY_ECHO_FORMS, keyEcho, startFakeProvider, type FakeProviderServer } from '../../support/fakeProvider';
import { secretForms } from '../../../src/engine/secrets/redact';
import { USER_DATA_DIR_ENV } from '../../support/vscode/codeServer';
import { arborApi, openCopy, readEntries, waitFor, withSetting, workspaceDir } from './arborHelpers';

type Result = { kind: string; [k: string]: unknown } | undefined;

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile());
}

describe('API keys', () => {
  let provider: FakeProviderServer;
  const logLines: string[] = [];
  /** The last line logged at a level VS Code writes to the log file (info and up). */
  let lastFileLine: string | undefined;
  const notes: Notification[] = [];
  const subs: vscode.Disposable[] = [];
  const files: string[] = [];
  const restore: (() => Promise<void>)[] = [];
  const newKey = (label: string) => `sk-${label}-${randomBytes(16).toString('hex')}`;

  before(async () => {
    const api = await arborApi();
    provider = await startFakeProvider();
    subs.push(
      api.internals.onDidLog((level, line) => {
        logLines.push(line);
        if (level !== 'debug') lastFileLine = line;
      }),
    );
    subs.push(api.internals.onDidNotify((n) => notes.push(n)));
  });

  after(async () => {
    for (const s of subs) s.dispose();
    for (const r of restore.reverse()) await r();
    await vscode.commands.executeCommand('arbor.setApiKey', 'openai', '');
    await vscode.commands.executeCommand('arbor.setApiKey', 'anthropic', '');
    await provider.stop();
  });

  async function useProvider(name: 'openai' | 'anthropic'): Promise<void> {
    for (const r of restore.splice(0).reverse()) await r();
    restore.push(await withSetting('summarizer.provider', name));
    restore.push(await withSetting('summarizer.baseURL', name === 'openai' ? provider.openaiBaseURL : provider.anthropicBaseURL));
    restore.push(await withSetting('summarizer.model', name === 'openai' ? 'gpt-4o-mini' : 'claude-haiku-4-5'));
  }

  /** Every form of `key` that must be nowhere: raw, Bearer, base64 (of the key and of user:key forms, any alignment), URL-encoded. */
  const forms = (key: string) => [...new Set([...ALL_KEY_ECHO_FORMS.map((f) => keyEcho(key, f)), ...secretForms(key)])];

  /** Looks for every form of `key` everywhere it must not be. */
  /** Waits until VS Code's Arbor log file on disk has the last line logged at info or above (it writes in batches). */
  async function logFileFlushed(): Promise<void> {
    const last = lastFileLine;
    const userData = process.env[USER_DATA_DIR_ENV];
    if (last === undefined || !userData) return;
    await waitFor(
      () =>
        filesUnder(path.join(userData, 'logs')).some((f) => /Arbor/.test(path.basename(f)) && fs.readFileSync(f, 'utf8').includes(last)),
      `the Arbor log file to have: ${last.slice(0, 80)}`,
    );
  }

  async function assertNowhere(key: string): Promise<void> {
    await logFileFlushed();
    for (const form of forms(key)) await assertFormNowhere(form);
  }

  async function assertFormNowhere(key: string): Promise<void> {
    const { services } = (await arborApi()).internals;
    for (const line of logLines) assert.ok(!line.includes(key), `the key is in a log line: ${line}`);
    for (const n of notes) assert.ok(!JSON.stringify(n).includes(key), `the key is in a notification: ${n.message}`);
    const userData = process.env[USER_DATA_DIR_ENV];
    assert.ok(userData, `${USER_DATA_DIR_ENV} is set by the test runner`);
    const settingsFiles = [
      path.join(userData, 'User', 'settings.json'),
      path.join(userData, 'Machine', 'settings.json'),
      path.join(workspaceDir(), '.vscode', 'settings.json'),
      ...filesUnder(path.join(userData, 'User', 'profiles')).filter((f) => f.endsWith('settings.json')),
    ].filter((f) => fs.existsSync(f));
    assert.ok(settingsFiles.length >= 2, settingsFiles.join());
    for (const f of settingsFiles) assert.ok(!fs.readFileSync(f, 'utf8').includes(key), `the key is in ${f}`);
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('arbor')).includes(key), 'the key is in the arbor settings');
    // VS Code's logs on disk, with the Arbor output channel's file.
    const logFiles = filesUnder(path.join(userData, 'logs'));
    assert.ok(
      logFiles.some((f) => /Arbor/.test(path.basename(f))),
      `the Arbor log file is among ${logFiles.length} log files`,
    );
    for (const f of logFiles) assert.ok(!fs.readFileSync(f, 'utf8').includes(key), `the key is in ${f}`);
    for (const f of files) assert.ok(!fs.readFileSync(f, 'utf8').includes(key), `the key is in the session file ${f}`);
    assert.ok(!JSON.stringify(services.panel.currentView ?? {}).includes(key), 'the key is in the summary panel');
  }

  async function failingCompact(key: string): Promise<void> {
    const file = await openCopy('01-plain', 'keys');
    files.push(file);
    const before = fs.readFileSync(file, 'utf8');
    provider.reset();
    provider.script({ type: 'status', status: 401, message: 'invalid credentials', echoCredentials: true });
    notes.length = 0;
    const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '', review: false });
    assert.strictEqual(result, undefined, 'the compaction failed');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), before, 'nothing written');
    // The key did go to the provider (and the provider echoed it back)...
    assert.strictEqual(provider.requests.length, 1);
    const { authorization, 'x-api-key': apiKey } = provider.requests[0].headers;
    assert.ok(`${authorization} ${apiKey}`.includes(key), `the request carried the key: ${JSON.stringify(provider.requests[0].headers)}`);
    // ...and the user was told, with the echo redacted.
    const shown = (await waitFor(
      () => notes.find((n) => n.kind === 'error' && /Compact failed/.test(n.message)),
      'the error notification',
    ))!;
    assert.match(shown.message, /401/);
    assert.match(shown.message, /\[redacted\]/, 'the echoed credential reached the message and was redacted');
    assert.ok(
      logLines.some((l) => /Compact failed/.test(l) && /\[redacted\]/.test(l)),
      'the log has the error, redacted',
    );
    await assertNowhere(key);
  }

  it('a key set with Set API Key (OpenAI) reaches the provider and nothing else, even when the provider echoes it in an error', async () => {
    const key = newKey('arbor-openai');
    await useProvider('openai');
    assert.strictEqual(await vscode.commands.executeCommand('arbor.setApiKey', 'openai', key), true);
    assert.strictEqual(await (await arborApi()).internals.services.keys.get('openai'), key, 'in SecretStorage');
    await failingCompact(key);
  });

  it('the same for Anthropic', async () => {
    const key = newKey('ant-arbor');
    await useProvider('anthropic');
    assert.strictEqual(await vscode.commands.executeCommand('arbor.setApiKey', 'anthropic', key), true);
    await failingCompact(key);
  });

  it('a key from the environment (OPENAI_API_KEY, nothing stored) is kept out the same way', async () => {
    const key = newKey('arbor-env');
    await useProvider('openai');
    await vscode.commands.executeCommand('arbor.setApiKey', 'openai', '');
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = key;
    try {
      await failingCompact(key);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it("an error carrying the key from another extension's hook is logged without it", async () => {
    const key = newKey('arbor-hook');
    await useProvider('openai');
    await vscode.commands.executeCommand('arbor.setApiKey', 'openai', key);
    const api = await arborApi();
    const hook = api.onHook('session_before_compact', () => {
      throw new Error(`upstream refused key ${key}`);
    });
    try {
      const file = await openCopy('01-plain', 'keys-hook');
      files.push(file);
      provider.reset();
      provider.setFallback({ type: 'text', text: '## Goal\n- Keep going' });
      logLines.length = 0;
      await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '', review: false });
      await waitFor(() => logLines.some((l) => /upstream refused key \[redacted\]/.test(l)), 'the hook failure in the log, redacted');
      await assertNowhere(key);
    } finally {
      hook.dispose();
    }
  });

  for (const name of ['openai', 'anthropic'] as const) {
    it(
      `${name}: a successful answer echoing the key (raw, Bearer, base64, user:key, URL-encoded) reaches no panel, ` +
        `log, notification or session file`,
      async () => {
        const key = newKey(`arbor-echo-${name}`);
        await useProvider(name);
        await vscode.commands.executeCommand('arbor.setApiKey', name, key);
        provider.reset();
        provider.setFallback({ type: 'echoKey', text: '## Goal\n- Keep going\n\n## Next Steps\n1. Ship it' });
        // Reviewed: the proposal in the panel.
        const reviewed = await openCopy('01-plain', `keys-echo-review-${name}`);
        files.push(reviewed);
        const proposed = await vscode.commands.executeCommand<Result>(
          'arbor.compact',
          { file: reviewed },
          { instructions: '', review: true },
        );
        assert.strictEqual(proposed?.kind, 'proposed', JSON.stringify(notes));
        assert.match(JSON.stringify(proposed), /Keep going/);
        assert.match(JSON.stringify(proposed), /raw: \[redacted\]/, 'the echo reached the answer and was redacted');
        await assertNowhere(key);
        // Written at once, then shown from the file.
        const file = await openCopy('01-plain', `keys-echo-${name}`);
        files.push(file);
        const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '', review: false });
        assert.strictEqual(result?.kind, 'compacted', JSON.stringify(notes));
        const entry = readEntries(file).pop()!;
        assert.strictEqual(entry.type, 'compaction');
        assert.match(String(entry.summary), /base64UserKey: \S*\[redacted\]/);
        const view = await vscode.commands.executeCommand('arbor.showSummary', { file, entryId: result.entryId });
        assert.ok(view, 'the written summary is in the panel');
        assert.ok(
          provider.requests.every((r) => `${r.headers.authorization} ${r.headers['x-api-key']}`.includes(key)),
          'the key did go to the provider',
        );
        await assertNowhere(key);
      },
    );
  }

  it('a successful compaction writes no key into the session file', async () => {
    const key = newKey('arbor-ok');
    await useProvider('openai');
    await vscode.commands.executeCommand('arbor.setApiKey', 'openai', key);
    const file = await openCopy('01-plain', 'keys-ok');
    files.push(file);
    provider.reset();
    // 01-plain splits a turn: two summary requests.
    provider.setFallback({ type: 'text', text: '## Goal\n- Keep going\n\n## Next Steps\n1. Ship it' });
    const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: '', review: false });
    assert.strictEqual(
      result?.kind,
      'compacted',
      `${JSON.stringify(notes)} ${JSON.stringify(provider.requests.map((r) => [r.path, r.behaviour]))}`,
    );
    assert.strictEqual(readEntries(file).pop()!.type, 'compaction');
    assert.ok(String(provider.requests[0].headers.authorization).includes(key));
    await assertNowhere(key);
  });
});
