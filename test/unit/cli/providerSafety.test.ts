/**
 * The built `arbor` binary against a hostile provider (the fake server on 127.0.0.1, through the real SDKs):
 * no form of the API key in the session file, stdout or stderr, even when a successful answer echoes it
 * (issue 13 item 3); a provider that drips or answers too much is stopped by the deadline / answer-size cap
 * with the file left byte-identical, and an invalid --base-url is exit 2 before any request (item 8).
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fsp, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturePath, repoRoot } from '../../support/fixtures';
import {
  ALL_KEY_ECHO_FORMS,
  ALTERED_KEY_ECHO_FORMS,
  OBFUSCATED_KEY_ECHO_FORMS,
  keyEcho,
  startFakeProvider,
  type FakeProviderServer,
} from '../../support/fakeProvider';
import { secretForms } from '../../../src/engine/secrets/redact';
import { holdsKeyRun, revealsKey } from '../../support/keyRuns';

const cli = path.join(repoRoot, 'dist', 'cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function arbor(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'ARBOR_PROVIDER', 'ARBOR_MODEL'])
    delete clean[k];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...clean, PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-no-pi-dir'), ...env }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

async function tempCopy(name: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-prov-'));
  const file = path.join(dir, `${name}.jsonl`);
  await fsp.copyFile(fixturePath('pi-oracle', 'fixtures', `${name}.jsonl`), file);
  return file;
}

/** Every way the key could show: what the fake server echoes, plus the forms the redactor knows (base64 at any alignment, URL-encoded). */
function keyNeedles(key: string): string[] {
  return [...new Set([...ALL_KEY_ECHO_FORMS.map((f) => keyEcho(key, f)), ...secretForms(key)])];
}

function assertNoKey(where: string, text: string, key: string): void {
  for (const needle of keyNeedles(key)) assert.ok(!text.includes(needle), `${where} holds a form of the key (${needle.slice(0, 12)}…)`);
  assert.ok(!holdsKeyRun(text, key), `${where} holds 12 characters of the key (ignoring case and separators)`);
  const hex = Buffer.from(key, 'utf8').toString('hex');
  assert.ok(!holdsKeyRun(text.replace(/%/g, ''), hex), `${where} holds the key in hex`);
}

const providers = [
  { name: 'openai', keyVariable: 'OPENAI_API_KEY', baseURL: (s: FakeProviderServer) => s.openaiBaseURL },
  { name: 'anthropic', keyVariable: 'ANTHROPIC_API_KEY', baseURL: (s: FakeProviderServer) => s.anthropicBaseURL },
] as const;

describe('arbor CLI (built binary) with a hostile provider', function () {
  let server: FakeProviderServer;
  before(() => assert.ok(existsSync(cli), `${cli} is missing: run npm run build first`));
  beforeEach(async () => {
    server = await startFakeProvider();
  });
  afterEach(async () => {
    await server.stop();
  });

  for (const p of providers) {
    it(
      `${p.name}: a successful answer echoing the key (raw, Bearer, base64, user:key, URL-encoded) leaves no form of ` +
        `it in the file, stdout or stderr`,
      async () => {
        const key = `sk-${p.name}-echo-${randomBytes(18).toString('hex')}`;
        const env = { [p.keyVariable]: key };
        server.setFallback({ type: 'echoKey', text: '## Goal\n- Keep the parser fast\n\n## Next Steps\n1. Ship it' });
        const textModeFile = await tempCopy('03-tree');
        const summariesBefore = (await fsp.readFile(textModeFile, 'utf8'))
          .split('\n')
          .filter((l) => /"type":"(compaction|branch_summary)"/.test(l)).length;
        const file = await tempCopy('03-tree');
        for (const [f, json] of [
          [textModeFile, false],
          [file, true],
        ] as const) {
          const c = await arbor(
            [
              'compact',
              f,
              '--provider',
              p.name,
              '--base-url',
              p.baseURL(server),
              '--keep-recent-tokens',
              '1000',
              // The echo (every key form the fake knows) is larger than what it replaces: this test is about leaks.
              '--allow-larger',
              ...(json ? ['--json'] : []),
            ],
            env,
          );
          assert.equal(c.code, 0, c.stderr);
          assert.match(c.stdout, /Keep the parser fast/);
          assertNoKey('compact stdout', c.stdout, key);
          assertNoKey('compact stderr', c.stderr, key);
        }
        assertNoKey('the session file', await fsp.readFile(textModeFile, 'utf8'), key);
        const n = await arbor(
          ['navigate', file, '--to', '8c5b7af4', '--summarize', '--provider', p.name, '--base-url', p.baseURL(server), '--json'],
          env,
        );
        assert.equal(n.code, 0, n.stderr);
        assert.equal(JSON.parse(n.stdout).summaryEntry.type, 'branch_summary');
        assertNoKey('navigate stdout', n.stdout, key);
        assertNoKey('navigate stderr', n.stderr, key);
        // The provider did get the key and did echo it; the summaries were written, with the echo redacted.
        assert.ok(server.requests.length >= 3);
        assert.ok(server.requests.every((r) => `${r.headers.authorization} ${r.headers['x-api-key']}`.includes(key)));
        const text = await fsp.readFile(file, 'utf8');
        const written = text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .filter((e) => e.type === 'compaction' || e.type === 'branch_summary')
          .slice(summariesBefore);
        assert.deepEqual(
          written.map((e) => e.type),
          ['compaction', 'branch_summary'],
        );
        for (const e of written) {
          assert.match(e.summary, /Keep the parser fast/);
          assert.match(e.summary, /- raw: \[redacted\]/);
          assert.match(e.summary, /- base64UserKey: \S*\[redacted\]/);
        }
        assertNoKey('the session file', text, key);
        const summary = await arbor(['summary', file], env);
        assert.equal(summary.code, 0, summary.stderr);
        assertNoKey('summary stdout', summary.stdout, key);
      },
    );

    it(`${p.name}: an error echoing the key leaves no form of it in stderr`, async () => {
      const key = `sk-${p.name}-err-${randomBytes(18).toString('hex')}`;
      server.script({
        type: 'status',
        status: 401,
        message: `bad key ${keyEcho(key, 'base64UserKey')} ${keyEcho(key, 'urlEncoded')}`,
        echoCredentials: true,
      });
      const file = await tempCopy('03-tree');
      const before = await fsp.readFile(file);
      const r = await arbor(['compact', file, '--provider', p.name, '--base-url', p.baseURL(server), '--keep-recent-tokens', '1000'], {
        [p.keyVariable]: key,
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /401/);
      assertNoKey('stderr', r.stderr + r.stdout, key);
      assert.deepEqual(await fsp.readFile(file), before);
    });

    it(`${p.name}: a provider dripping one byte at a time is stopped by --deadline; nothing is written`, async () => {
      server.setFallback({ type: 'drip', intervalMs: 40 });
      const file = await tempCopy('03-tree');
      const before = await fsp.readFile(file);
      const r = await arbor(
        ['compact', file, '--provider', p.name, '--base-url', p.baseURL(server), '--deadline', '1.5', '--keep-recent-tokens', '1000'],
        { [p.keyVariable]: 'sk-drip-test-key-0000' },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /no complete answer within 1\.5 s \(the summarization deadline/);
      assert.match(r.stderr, /nothing was written/);
      assert.deepEqual(await fsp.readFile(file), before, 'byte-identical');
      assert.ok(server.requests.length >= 1);
    });

    it(`${p.name}: an answer over --max-answer-chars fails; nothing is written`, async () => {
      server.setFallback({ type: 'huge', chars: 3_000_000 });
      const file = await tempCopy('03-tree');
      const before = await fsp.readFile(file);
      const r = await arbor(
        [
          'compact',
          file,
          '--provider',
          p.name,
          '--base-url',
          p.baseURL(server),
          '--max-answer-chars',
          '20000',
          '--keep-recent-tokens',
          '1000',
        ],
        { [p.keyVariable]: 'sk-huge-test-key-0000' },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /larger than 20,000 characters \(the answer-size cap/);
      assert.deepEqual(await fsp.readFile(file), before, 'byte-identical');
      assert.equal(server.requests.length, 1, 'not retried');
    });
  }

  for (const form of ALTERED_KEY_ECHO_FORMS) {
    it(`the key echoed as ${form}: redacted on the success and the failure path, both providers (file, stdout, stderr)`, async () => {
      for (const p of providers) {
        const key = `sk-${p.name}-${form.toLowerCase()}-${randomBytes(12).toString('hex')}`;
        const env = { [p.keyVariable]: key };
        const file = await tempCopy('03-tree');
        server.setFallback({ type: 'echoKey', text: '## Goal\n- Keep the parser fast', forms: [form] });
        const ok = await arbor(
          ['compact', file, '--provider', p.name, '--base-url', p.baseURL(server), '--keep-recent-tokens', '1000', '--json'],
          env,
        );
        assert.equal(ok.code, 0, ok.stderr);
        assertNoKey(`${p.name} ${form}: compact stdout`, ok.stdout, key);
        assertNoKey(`${p.name} ${form}: compact stderr`, ok.stderr, key);
        assertNoKey(`${p.name} ${form}: the session file`, await fsp.readFile(file, 'utf8'), key);
        const fresh = await tempCopy('03-tree');
        const before = await fsp.readFile(fresh);
        server.script({ type: 'status', status: 401, message: `bad key ${keyEcho(key, form)}` });
        const failed = await arbor(
          ['compact', fresh, '--provider', p.name, '--base-url', p.baseURL(server), '--keep-recent-tokens', '1000'],
          env,
        );
        assert.equal(failed.code, 1, failed.stderr);
        assertNoKey(`${p.name} ${form}: failure output`, failed.stdout + failed.stderr, key);
        assert.deepEqual(await fsp.readFile(fresh), before);
      }
    });
  }

  for (const p of providers) {
    it(`issue 38 item 2: ${p.name}: the key echoed obfuscated (every form) reaches no file, --json, summary, HTML export or stderr`, async () => {
      const key = `sk-${randomBytes(20).toString('hex')}`;
      const env = { [p.keyVariable]: key };
      const forms = [...OBFUSCATED_KEY_ECHO_FORMS];
      const clean = (where: string, text: string) => {
        assertNoKey(where, text, key);
        assert.ok(!revealsKey(text, key), `${where} reveals the key (de-obfuscated)`);
      };
      server.setFallback({ type: 'echoKey', text: '## Goal\n- Keep the parser fast', forms });
      const file = await tempCopy('03-tree');
      const c = await arbor(
        ['compact', file, '--provider', p.name, '--base-url', p.baseURL(server), '--keep-recent-tokens', '1000', '--json'],
        env,
      );
      assert.equal(c.code, 0, c.stderr);
      clean('compact --json', c.stdout);
      clean('compact stderr', c.stderr);
      const text = await fsp.readFile(file, 'utf8');
      clean('the session file', text);
      const written = JSON.parse(text.trim().split('\n').pop()!);
      assert.equal(written.type, 'compaction');
      for (const form of forms) assert.match(written.summary, new RegExp(`- ${form}: [^\\n]*\\[redacted\\]`), form);
      const summary = await arbor(['summary', file], env);
      assert.equal(summary.code, 0, summary.stderr);
      clean('summary', summary.stdout);
      const html = path.join(path.dirname(file), 'out.html');
      const exported = await arbor(['export', file, '--format', 'html', '--out', html], env);
      assert.equal(exported.code, 0, exported.stderr);
      clean('the HTML export', await fsp.readFile(html, 'utf8'));
      for (const status of [401, 502]) {
        const fresh = await tempCopy('03-tree');
        // Every answer fails (a 502 is retried).
        server.setFallback({ type: 'status', status, message: `bad key ${forms.map((f) => keyEcho(key, f)).join(' ; ')}` });
        const failed = await arbor(
          ['compact', fresh, '--provider', p.name, '--base-url', p.baseURL(server), '--keep-recent-tokens', '1000'],
          env,
        );
        assert.equal(failed.code, 1, failed.stderr);
        assert.match(failed.stderr, new RegExp(String(status)));
        clean(`the ${status} error`, failed.stdout + failed.stderr);
      }
    });

    it(`${p.name}: a usage of 1e308 tokens is not written as null (the usage field is left out); --deadline 2147484 s does not fire at once`, async () => {
      server.setFallback({
        type: 'text',
        text: '## Goal\n- Keep the parser fast',
        usage: { input: 1e308, output: 1e308, cacheRead: 1e308, cacheWrite: 1e308 },
      });
      const file = await tempCopy('03-tree');
      for (const deadline of ['2147484', '1e12']) {
        const copy = await tempCopy('03-tree');
        const r = await arbor(
          ['compact', copy, '--provider', p.name, '--base-url', p.baseURL(server), '--deadline', deadline, '--keep-recent-tokens', '1000'],
          { [p.keyVariable]: 'sk-usage-test-key-0000' },
        );
        assert.equal(r.code, 0, `--deadline ${deadline}: ${r.stderr}`);
      }
      const r = await arbor(['compact', file, '--provider', p.name, '--base-url', p.baseURL(server), '--keep-recent-tokens', '1000'], {
        [p.keyVariable]: 'sk-usage-test-key-0000',
      });
      assert.equal(r.code, 0, r.stderr);
      const text = await fsp.readFile(file, 'utf8');
      assert.ok(!text.includes('null,') || !/"usage":\{[^}]*null/.test(text), 'no null in a usage');
      const compaction = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === 'compaction')
        .pop();
      assert.equal(compaction.usage, undefined);
    });
  }

  it('an invalid OPENAI_BASE_URL / ANTHROPIC_BASE_URL is exit 2 naming the variable, before any request', async () => {
    const file = await tempCopy('03-tree');
    for (const [provider, variable] of [
      ['openai', 'OPENAI_BASE_URL'],
      ['anthropic', 'ANTHROPIC_BASE_URL'],
    ] as const) {
      for (const url of ['not a url', 'file:///etc/passwd']) {
        const r = await arbor(['compact', file, '--provider', provider], {
          [variable]: url,
          OPENAI_API_KEY: 'sk-env-url-test-0000',
          ANTHROPIC_API_KEY: 'sk-env-url-test-0000',
        });
        assert.equal(r.code, 2, `${variable}=${url}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`${variable} (is not a valid URL|must be an http)`));
      }
    }
    assert.equal(server.requests.length, 0);
  });

  it("an empty --base-url is none, as an empty arbor.summarizer.baseURL is (one rule): the provider's variable applies", async () => {
    server.setFallback({ type: 'text', text: '## Goal\n- Keep the parser fast' });
    for (const blank of ['', '  ']) {
      const file = await tempCopy('03-tree');
      const r = await arbor(['compact', file, '--provider', 'openai', '--base-url', blank, '--keep-recent-tokens', '1000', '--json'], {
        OPENAI_API_KEY: 'sk-base-url-test-0000',
        OPENAI_BASE_URL: `${server.openaiBaseURL}//`,
      });
      assert.equal(r.code, 0, `--base-url ${JSON.stringify(blank)}: ${r.stderr}`);
    }
    assert.equal(server.requests.length, 2, 'both went to OPENAI_BASE_URL');
    const file = await tempCopy('03-tree');
    const before = await fsp.readFile(file);
    const bad = await arbor(['compact', file, '--provider', 'openai', '--base-url', '', '--keep-recent-tokens', '1000'], {
      OPENAI_API_KEY: 'sk-base-url-test-0000',
      OPENAI_BASE_URL: 'not a url',
    });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /OPENAI_BASE_URL is not a valid URL/);
    assert.deepEqual(await fsp.readFile(file), before);
  });

  it('an invalid --base-url (unparsable, not http/https, with credentials) is exit 2 before any request, without repeating a password', async () => {
    const file = await tempCopy('03-tree');
    const before = await fsp.readFile(file);
    const withCredentials = server.openaiBaseURL.replace('http://', 'http://someone:hunter2-password@');
    const cases: [string, RegExp][] = [
      ['not a url', /--base-url is not a valid URL/],
      ['file:///etc/passwd', /--base-url must be an http:\/\/ or https:\/\/ URL \(got file:\)/],
      ['ftp://127.0.0.1/v1', /must be an http:\/\/ or https:\/\/ URL/],
      [withCredentials, /--base-url must not contain a user name or password/],
    ];
    for (const [url, message] of cases) {
      const r = await arbor(['compact', file, '--provider', 'openai', '--base-url', url], { OPENAI_API_KEY: 'sk-base-url-test-0000' });
      assert.equal(r.code, 2, `${url}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.ok(!r.stderr.includes('hunter2'), r.stderr);
    }
    const nav = await arbor(
      ['navigate', file, '--to', '8c5b7af4', '--summarize', '--provider', 'anthropic', '--base-url', withCredentials],
      { ANTHROPIC_API_KEY: 'sk-base-url-test-0000' },
    );
    assert.equal(nav.code, 2, nav.stderr);
    const bad = await arbor(['compact', file, '--provider', 'openai', '--base-url', server.openaiBaseURL, '--deadline', 'soon'], {
      OPENAI_API_KEY: 'sk-base-url-test-0000',
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--deadline takes a positive number/);
    assert.equal(server.requests.length, 0, 'no request was made');
    assert.deepEqual(await fsp.readFile(file), before);
  });
});
