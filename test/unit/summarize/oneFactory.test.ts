/**
 * Issue 11 item 3 (summarizer parts): one factory with current default models, one model table, one
 * context-window resolver, imported by the CLI and the extension alike.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SUMMARY_MODELS } from '../../../src/engine/summarize/providers/createSummarizer';
import { DEFAULT_CONTEXT_WINDOW, lookupModel, resolveContextWindow } from '../../../src/engine/summarize/providers/models';
import { contextWindowForModel } from '../../../src/cli/contextWindow';
import { repoRoot } from '../../support/fixtures';

function sourceFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
}

describe('one summarizer factory, model table and context-window resolver', () => {
  it("default models are in the model table and not on the Anthropic SDK's deprecation list", () => {
    // Not an exported subpath: read by file, from the installed SDK's directory.
    const sdkDir = path.join(repoRoot, 'node_modules', '@anthropic-ai', 'sdk');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DEPRECATED_MODELS } = require(path.join(sdkDir, 'internal', 'data', 'deprecated-models.js')) as {
      DEPRECATED_MODELS: Record<string, string>;
    };
    assert.ok(Object.keys(DEPRECATED_MODELS).includes('claude-sonnet-4-5'), 'the SDK lists the old extension default as end-of-life');
    for (const model of Object.values(DEFAULT_SUMMARY_MODELS)) {
      assert.ok(lookupModel(model), `${model} is in the model table`);
      assert.equal(DEPRECATED_MODELS[model], undefined, `${model} is deprecated`);
    }
  });

  it('the extension builds summarizers only through the engine factory, and reads no model table of its own', () => {
    for (const file of sourceFiles(path.join(repoRoot, 'src', 'vscode'))) {
      const text = fs.readFileSync(file, 'utf8');
      assert.ok(!/providers\/(openai|anthropic|offline)'/.test(text), `${file} imports a provider directly`);
      assert.ok(!/claude-[a-z0-9-]+'|gpt-[0-9][a-z0-9.-]*'/.test(text), `${file} names a model`);
      assert.ok(!/\b(200000|128000|200_000|128_000)\b/.test(text), `${file} has its own context-window default`);
    }
    const factoryUsers = ['src/vscode/platform/summarizers.ts', 'src/cli/summarizerArgs.ts'].map((f) =>
      fs.readFileSync(path.join(repoRoot, f), 'utf8'),
    );
    for (const text of factoryUsers)
      assert.match(text, /import \{ createSummarizer[^}]*\} from '(?:\.\.\/)+engine\/summarize\/providers\/createSummarizer'/);
  });

  it('one precedence: explicit > per-model setting > model table > one default', () => {
    const gpt41 = { provider: 'openai', modelId: 'gpt-4.1' };
    assert.equal(resolveContextWindow({ model: gpt41 }), 1047576);
    assert.equal(resolveContextWindow({ model: gpt41, perModel: { 'openai/gpt-4.1': 50000 } }), 50000);
    assert.equal(resolveContextWindow({ model: gpt41, perModel: { 'gpt-4.1': 60000 } }), 60000);
    assert.equal(resolveContextWindow({ model: gpt41, perModel: { 'openai/gpt-4.1': 50000 }, explicit: 32000 }), 32000);
    assert.equal(resolveContextWindow({ model: gpt41, explicit: 0 }), 1047576, '0: no explicit window');
    assert.equal(
      resolveContextWindow({ model: gpt41, perModel: { 'openai/gpt-4.1': 'big' } }),
      1047576,
      'a bad per-model value is ignored',
    );
    assert.equal(resolveContextWindow({ model: { provider: 'anthropic', modelId: 'claude-future-9' } }), 200000);
    assert.equal(resolveContextWindow({ model: { provider: 'mock', modelId: 'mock-coder' } }), DEFAULT_CONTEXT_WINDOW);
    assert.equal(resolveContextWindow({ model: null }), DEFAULT_CONTEXT_WINDOW);
    assert.equal(DEFAULT_CONTEXT_WINDOW, 128000);
    // The CLI's adapter is the same function.
    assert.equal(contextWindowForModel(gpt41), 1047576);
    assert.equal(contextWindowForModel(gpt41, 32768), 32768);
    assert.equal(contextWindowForModel(null), DEFAULT_CONTEXT_WINDOW);
  });
});
