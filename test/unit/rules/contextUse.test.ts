// Issue 22: the context-use numbers have one home (engine/operations/contextUse.ts). `arbor context` prints what
// contextUse computes, at every entry of every fixture, for both estimators; the extension's status bar is
// compared with the CLI in test/integration/suite/numbers.test.ts.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { json } from '../../support/cliInProcess';
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
});
