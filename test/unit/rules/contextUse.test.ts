// Issue 22: the context-use numbers have one home (engine/operations/contextUse.ts). `arbor context` prints what
// contextUse computes, at every entry of every fixture, for both estimators; the extension's status bar is
// compared with the CLI in test/integration/suite/numbers.test.ts.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { json, run } from '../../support/cliInProcess';
import { fixturePath } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { contextUse, contextUseReported } from '../../../src/engine/operations/contextUse';
import { estimatorByName } from '../../../src/engine/tokens/estimators';
import { resolveContextWindowSource } from '../../../src/engine/summarize/providers/models';

const FIXTURES = [
  ...['01-plain', '02-compaction', '03-tree', '04-split-turn', '05-misc'].map((f) => fixturePath('pi-oracle', 'fixtures', `${f}.jsonl`)),
  fixturePath('pi-oracle', 'fixtures-pi16', '01-pi16.jsonl'),
  fixturePath('agents', 'claude-code-session.jsonl'),
  fixturePath('agents', 'codex-rollout.jsonl'),
];

describe('context use: one home for the CLI and the extension', () => {
  let agentDir: string;
  const saved = process.env.PI_CODING_AGENT_DIR;
  before(async () => {
    // An empty agent folder: no models.json or settings of the machine running the tests.
    agentDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-use-'));
    process.env.PI_CODING_AGENT_DIR = agentDir;
  });
  after(async () => {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
    await fsp.rm(agentDir, { recursive: true, force: true });
  });

  for (const file of FIXTURES) {
    for (const name of ['chars', 'tokenizer'] as const) {
      for (const window of [undefined, 50000]) {
        const title = `${path.basename(file)}, ${name}, ${window ? `--context-window ${window}` : 'resolved window'}`;
        it(`${title}: arbor context prints contextUse at every entry`, async () => {
          const index = await loadSession(file);
          const estimator = estimatorByName(name);
          const flags = ['--estimator', name, ...(window ? ['--context-window', String(window)] : [])];
          assert.ok(index.entryCount > 0);
          for (let i = 0; i < index.entryCount; i++) {
            const id = index.record(i).id;
            const use = await contextUse(index, i, {
              estimator,
              contextWindowFor: (model, recorded) =>
                resolveContextWindowSource({ explicit: window, explicitName: '--context-window', model, recorded }),
            });
            const cli = (await json(['context', file, '--leaf', id, ...flags])).numbers;
            assert.deepEqual(
              {
                tokens: cli.tokens,
                contextWindow: cli.contextWindow,
                percent: cli.percent,
                estimated: cli.estimated,
                windowSource: cli.windowSource,
              },
              {
                tokens: use.figure.tokens,
                contextWindow: use.contextWindow,
                percent: use.figure.percent,
                estimated: use.figure.estimated,
                windowSource: use.windowSource,
              },
              `entry ${id}`,
            );
            assert.equal(use.tokens.tokens, use.figure.tokens);
            assert.equal(use.threshold, use.contextWindow - use.settings.reserveTokens);
            assert.equal(use.overThreshold, use.settings.enabled && use.tokens.tokens > use.threshold);
          }
        });
      }
    }
  }

  it("a Pi settings file Arbor cannot read gives the defaults and names the error; the CLI's output is the same", async () => {
    const file = FIXTURES[1];
    const index = await loadSession(file);
    const estimator = estimatorByName('chars');
    const contextWindowFor = (model: Parameters<typeof resolveContextWindowSource>[0]['model'], recorded: number | undefined) =>
      resolveContextWindowSource({ model, recorded });
    const good = await contextUse(index, index.leafIndex, { estimator, contextWindowFor });
    const cliGood = await json(['context', file, '--estimator', 'chars']);
    await fsp.writeFile(path.join(agentDir, 'settings.json'), '{"compaction": {"reserveTokens": "lots"');
    try {
      const bad = await contextUse(index, index.leafIndex, { estimator, contextWindowFor });
      assert.ok(bad.settingsError, 'the error is reported');
      assert.deepEqual(bad.settings, good.settings);
      assert.deepEqual(bad.figure, good.figure);
      assert.deepEqual(await json(['context', file, '--estimator', 'chars']), cliGood);
      const thrown = await contextUse(index, index.leafIndex, {
        estimator,
        contextWindowFor,
        piSettings: () => Promise.reject(new Error('no settings here')),
      });
      assert.equal(thrown.settingsError, 'no settings here');
    } finally {
      await fsp.rm(path.join(agentDir, 'settings.json'), { force: true });
    }
  });

  it('a figure reported by a running agent moves the window, percent and threshold state with it; hostile numbers stay whole and >= 0', async () => {
    const index = await loadSession(FIXTURES[0]);
    const use = await contextUse(index, index.leafIndex, {
      estimator: estimatorByName('chars'),
      contextWindowFor: (model, recorded) => resolveContextWindowSource({ model, recorded }),
    });
    const r = contextUseReported(use, { tokens: 30000.6, contextWindow: 32768, windowSource: 'the running agent' });
    assert.equal(r.tokens.tokens, 30001);
    assert.equal(r.figure.percent, 92);
    assert.equal(r.threshold, 32768 - use.settings.reserveTokens);
    assert.equal(r.overThreshold, use.settings.enabled && 30001 > r.threshold);
    assert.equal(r.figure.estimated, false);
    assert.equal(r.windowSource, 'the running agent');
    assert.equal(contextUseReported(use, { tokens: -5, contextWindow: 100, windowSource: 'x' }).tokens.tokens, 0);
  });

  // Issue 34 item 4: Show Context's parts add up to its figure, with an explicit "other" line saying what it is; `arbor context`
  // prints the same parts (one function, contextUse). The panel's side: test/integration/suite/commands.test.ts (Show Context).
  for (const file of FIXTURES)
    for (const name of ['chars', 'tokenizer'] as const)
      it(`${path.basename(file)}, ${name}: messages by role + other = the figure at every entry, and the CLI prints the same parts`, async () => {
        const index = await loadSession(file);
        const estimator = estimatorByName(name);
        for (let i = 0; i < index.entryCount; i++) {
          const id = index.record(i).id;
          const use = await contextUse(index, i, {
            estimator,
            contextWindowFor: (model, recorded) => resolveContextWindowSource({ model, recorded }),
            messages: true,
          });
          const parts = use.parts;
          assert.ok(parts, `entry ${id}: parts asked for`);
          const byRole = parts.byRole.reduce((s, r) => s + r.tokens, 0);
          assert.equal(byRole + parts.otherTokens, use.figure.tokens, `entry ${id}: the parts add up to the figure`);
          assert.equal(parts.total, use.figure.tokens);
          assert.equal(
            parts.byRole.reduce((s, r) => s + r.count, 0),
            use.messages.length,
          );
          assert.ok(parts.otherMeaning.length > 0, 'other says what it is');
          if (!use.figure.estimated && parts.otherTokens > 0)
            assert.match(parts.otherMeaning, /system prompt, tool definitions and message framing/);
          const cli = await json(['context', file, '--leaf', id, '--estimator', name]);
          assert.deepEqual(
            cli.parts,
            {
              byRole: parts.byRole,
              messagesTokens: parts.messagesTokens,
              other: { tokens: parts.otherTokens, meaning: parts.otherMeaning },
              total: parts.total,
            },
            `entry ${id}`,
          );
          assert.deepEqual(
            cli.messages.map((m: { tokens: number }) => m.tokens),
            use.messages.map((m) => m.tokens),
          );
        }
      });

  it('the text output lists each role, an "other" line with its meaning, and the figure they add up to', async () => {
    const file = FIXTURES[0];
    const r = await run(['context', file, '--estimator', 'chars']);
    assert.equal(r.code, 0, r.err);
    const parts = (await json(['context', file, '--estimator', 'chars'])).parts;
    const lines = r.out.split('\n');
    for (const role of parts.byRole)
      assert.ok(
        lines.some((l) => new RegExp(`^  ${role.role}\\s+${role.tokens}\\s+\\(${role.count} messages?\\)$`).test(l)),
        `${role.role}: ${r.out}`,
      );
    const other = lines.find((l) => /^ {2}other\s/.test(l));
    assert.ok(other, r.out);
    assert.ok(other.includes(String(parts.other.tokens)) && other.includes(parts.other.meaning));
    assert.match(r.out, new RegExp(`context: ~?${parts.total.toLocaleString('en-US')} of `));
  });
});
