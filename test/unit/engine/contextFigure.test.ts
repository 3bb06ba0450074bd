// Issue 21 item 3: one context figure with its source; Pi's models.json in the window resolver; after a compaction
// with no later response the figure is the estimate, marked, never the older usage.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { loadSession } from '../../../src/engine/session/loadSession';
import { contextFigure, contextTokensAt } from '../../../src/engine/context/contextNumbers';
import { estimatorByName } from '../../../src/engine/tokens/estimators';
import { modelWindowsOf, readPiModelWindows } from '../../../src/engine/settings/piModels';
import { resolveContextWindowSource } from '../../../src/engine/summarize/providers/models';
import { SettingsError } from '../../../src/engine/settings/piSettings';
import { fixturePath } from '../../support/fixtures';

async function cliJson(args: string[], env: Record<string, string>): Promise<any> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
    assert.equal(code, 0, err.join('\n'));
    return args.includes('--json') ? JSON.parse(out.join('\n')) : out.join('\n');
  } finally {
    process.env = saved;
  }
}

describe('context figure (one figure, its source named)', () => {
  let dir: string;
  before(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-figure-'));
  });
  after(() => fsp.rm(dir, { recursive: true, force: true }));

  it("reads Pi's models.json windows: a model's contextWindow, an override's, Pi's 128k default for a model without one; hostile shapes ignored", () => {
    const w = modelWindowsOf({
      providers: {
        local: {
          models: [{ id: 'coder', contextWindow: 32768 }, { id: 'plain' }, { id: 'bad', contextWindow: 'big' }, null, { contextWindow: 5 }],
        },
        openai: { modelOverrides: { 'gpt-4.1': { contextWindow: 64000 }, 'gpt-x': { contextWindow: -1 }, 'gpt-y': 7 } },
        weird: 'x',
        arr: [],
      },
    });
    assert.deepEqual([...w].sort(), [
      ['local/bad', 128000],
      ['local/coder', 32768],
      ['local/plain', 128000],
      ['openai/gpt-4.1', 64000],
    ]);
    for (const hostile of [
      null,
      1,
      'x',
      [],
      { providers: 1 },
      { providers: [] },
      { providers: { a: { models: 'x', modelOverrides: [] } } },
    ])
      assert.equal(modelWindowsOf(hostile).size, 0);
  });

  it('resolves explicit > arbor.modelContextWindows > models.json > model table > default, naming the source', () => {
    const model = { provider: 'openai', modelId: 'gpt-4.1' };
    const piModels = { file: 'models.json', windows: new Map([['openai/gpt-4.1', 64000]]) };
    assert.deepEqual(resolveContextWindowSource({ model, piModels, explicit: 1000, explicitName: '--context-window' }), {
      contextWindow: 1000,
      source: '--context-window',
    });
    assert.deepEqual(resolveContextWindowSource({ model, piModels, perModel: { 'gpt-4.1': 2000 } }), {
      contextWindow: 2000,
      source: 'arbor.modelContextWindows',
    });
    assert.deepEqual(resolveContextWindowSource({ model, piModels }), { contextWindow: 64000, source: "Pi's models.json" });
    assert.deepEqual(resolveContextWindowSource({ model }), { contextWindow: 1047576, source: "Arbor's model table" });
    assert.equal(resolveContextWindowSource({ model: { provider: 'x', modelId: 'unknown-model' } }).source, 'default (model not known)');
  });

  it('a models.json that is not JSON is an error naming the file; none is no windows', async () => {
    const agent = path.join(dir, 'bad-agent');
    await fsp.mkdir(agent, { recursive: true });
    assert.equal(readPiModelWindows({ PI_CODING_AGENT_DIR: agent }).windows.size, 0);
    await fsp.writeFile(path.join(agent, 'models.json'), '{ "providers": ');
    assert.throws(
      () => readPiModelWindows({ PI_CODING_AGENT_DIR: agent }),
      (e: unknown) => e instanceof SettingsError && e.message.includes(path.join(agent, 'models.json')),
    );
  });

  it('after a compaction with no later response: the estimate of the projected context, marked estimated, never the older usage', async () => {
    const src = fixturePath('pi-oracle', 'fixtures', '02-compaction.jsonl');
    const lines = (await fsp.readFile(src, 'utf8')).split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"type":"compaction"'));
    const cut = path.join(dir, 'cut.jsonl');
    await fsp.writeFile(cut, `${lines.slice(0, at + 1).join('\n')}\n`);
    const index = await loadSession(cut);
    const estimator = estimatorByName('chars');
    const tokens = contextTokensAt(index, index.leafIndex, estimator);
    const figure = contextFigure(index, index.leafIndex, tokens, estimator, { contextWindow: 32768, source: '--context-window' });
    assert.equal(figure.estimated, true);
    assert.equal(figure.usageTokens, 0);
    assert.equal(figure.estimatedBecause, 'no response since the latest compaction');

    const agent = path.join(dir, 'agent');
    await fsp.mkdir(agent, { recursive: true });
    await fsp.writeFile(
      path.join(agent, 'models.json'),
      JSON.stringify({ providers: { 'mock-openai': { models: [{ id: 'mock-coder', contextWindow: 32768 }] } } }),
    );
    const json = await cliJson(['context', cut, '--json', '--estimator', 'chars'], { PI_CODING_AGENT_DIR: agent });
    assert.deepEqual(json.numbers.tokens, tokens.tokens);
    assert.equal(json.numbers.estimated, true);
    assert.equal(json.numbers.contextWindow, 32768);
    assert.equal(json.numbers.windowSource, "Pi's models.json");
    assert.ok(
      json.contextTokens.usageTokens > 0,
      "Pi's estimateContextTokens (JSON contextTokens) still counts the older usage: it is not the figure",
    );
    const text: string = await cliJson(['context', cut, '--estimator', 'chars'], { PI_CODING_AGENT_DIR: agent });
    const figureLines = text
      .split('\n')
      .filter((l) => /token/.test(l) && !/^\S+ +(user|assistant|toolResult|compactionSummary|branchSummary|custom|bashExecution)/.test(l));
    assert.deepEqual(figureLines, [
      `context: ~${tokens.tokens.toLocaleString('en-US')} of 32,768 tokens ` +
        `(${Math.round((tokens.tokens / 32768) * 100)}%): estimated (chars): no response since the latest compaction; window: Pi's models.json`,
    ]);
  });
});
