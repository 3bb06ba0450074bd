/**
 * Issue 33 item 1 and 4: summaries by a language model VS Code offers, through
 * the real Language Model API. The test extension
 * (test/fixtures/extensions/test-language-models) registers its models with
 * vscode.lm.registerLanguageModelChatProvider; Arbor finds them with
 * vscode.lm.selectChatModels, sends the summary prompt, and the review panel,
 * Apply and the written entry work as with any summarizer. A failing model
 * writes nothing and says which model failed and what to do.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { SummaryView } from '../../../src/webview/protocol';
import { arborApi, openCopy, readEntries, waitFor, withSetting } from './arborHelpers';

type Result = { kind: string; proposalId?: string; [k: string]: unknown };

interface TestModels {
  requests: { model: string; prompt: string }[];
  answerWith(text: string | null): void;
  failWith(message: string | null): void;
  reset(): void;
}

const TEST_EXTENSION = 'arbor-test.test-language-models';

async function testModels(): Promise<TestModels> {
  const ext = (await waitFor(() => vscode.extensions.getExtension<TestModels>(TEST_EXTENSION), 'the test language-model extension'))!;
  return ext.isActive ? ext.exports : await ext.activate();
}

/**
 * Compacts a fresh copy of 01-plain, which must fail (the command answers undefined) and leave the file as it was;
 * returns the notification of `kind` that names `names`.
 */
async function failedCompact(name: string, kind: 'error' | 'warning', names: string): Promise<string> {
  const file = await openCopy('01-plain', name);
  const before = fs.readFileSync(file, 'utf8');
  const shown: string[] = [];
  const sub = (await arborApi()).internals.onDidNotify((n) => n.kind === kind && shown.push(n.message));
  try {
    assert.strictEqual(await vscode.commands.executeCommand('arbor.compact', { file }, { instructions: '' }), undefined);
    const message = (await waitFor(() => shown.find((m) => m.includes(names)), `the ${kind} naming ${names}`))!;
    assert.strictEqual(fs.readFileSync(file, 'utf8'), before, 'nothing written');
    return message;
  } finally {
    sub.dispose();
  }
}

describe('Summaries by a VS Code language model (issue 33)', () => {
  let models: TestModels;
  const restore: (() => Promise<void>)[] = [];

  before(async () => {
    await arborApi();
    models = await testModels();
    await waitFor(
      async () => (await vscode.lm.selectChatModels({ vendor: 'arbor-test' })).length >= 2,
      'the test models offered by vscode.lm.selectChatModels',
    );
  });

  afterEach(async () => {
    models.reset();
    const { services } = (await arborApi()).internals;
    for (const id of services.panel.pendingProposals()) services.panel.discard(id);
  });

  after(async () => {
    // The picker wrote where the values in effect came from: the fixture workspace's provider, the user's model.
    // (withSetting's restores first: they put back what was in effect when each test set it, the picker's choice.)
    for (const r of restore.reverse()) await r();
    const c = vscode.workspace.getConfiguration('arbor');
    await c.update('summarizer.provider', 'offline', vscode.ConfigurationTarget.Workspace);
    await c.update('summarizer.languageModel', undefined, vscode.ConfigurationTarget.Global);
    assert.strictEqual(vscode.workspace.getConfiguration('arbor').get('summarizer.provider'), 'offline');
  });

  it('Choose Summarizer Model sets the provider and the model, and names what is in use', async () => {
    const now = await vscode.commands.executeCommand<string>('arbor.chooseSummarizerModel', 'vscode:arbor-test/summary-model');
    assert.strictEqual(now, 'Arbor Test Summary Model (VS Code language model arbor-test/summary-model)');
    const c = vscode.workspace.getConfiguration('arbor');
    assert.strictEqual(c.get('summarizer.provider'), 'vscode');
    assert.strictEqual(c.get('summarizer.languageModel'), 'arbor-test/summary-model');
    const errors: string[] = [];
    const sub = (await arborApi()).internals.onDidNotify((n) => n.kind === 'error' && errors.push(n.message));
    try {
      assert.strictEqual(await vscode.commands.executeCommand('arbor.chooseSummarizerModel', 'nonsense'), undefined);
      await waitFor(() => errors.some((m) => m.includes('unknown summarizer "nonsense"')), 'the error for an unknown choice');
    } finally {
      sub.dispose();
    }
    assert.strictEqual(c.get('summarizer.provider'), 'vscode', 'an unknown choice changes nothing');
  });

  it('Compact asks the model, shows its summary for review with the model named and no invented usage, and Apply writes it', async () => {
    await vscode.commands.executeCommand('arbor.chooseSummarizerModel', 'vscode:arbor-test/summary-model');
    const file = await openCopy('01-plain', 'lm-01-plain');
    const before = fs.readFileSync(file, 'utf8');
    const result = await vscode.commands.executeCommand<Result>('arbor.compact', { file }, { instructions: 'Focus on the tests' });
    assert.strictEqual(result.kind, 'proposed');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), before, 'a proposal writes nothing');

    // The model got Arbor's summary prompt with the session's conversation and the user's focus.
    // (01-plain's cut falls inside a turn: the history and the turn's start are two requests, as in Pi.)
    assert.ok(models.requests.length >= 1);
    assert.ok(models.requests.every((r) => r.model === 'summary-model' && /<conversation>/.test(r.prompt)));
    const history = models.requests[0].prompt;
    assert.match(history, /Focus on the tests/);
    assert.match(history, /## Goal/, 'the format Arbor asks for');

    const { services } = (await arborApi()).internals;
    const view = services.panel.currentView!;
    assert.strictEqual(view.mode, 'review');
    assert.strictEqual(view.author, 'vscode/arbor-test/summary-model');
    assert.match(view.markdown, /Written by the Arbor test model/);
    assert.strictEqual(view.usage, undefined, 'the API reports no usage and none is made up');
    assert.match(view.summarizerNote ?? '', /Language Model API reports no token usage/);
    assert.ok(view.retention, 'the retention check runs on the model-written summary');

    const written = await vscode.commands.executeCommand<SummaryView>('arbor.applyProposal', result.proposalId);
    assert.strictEqual(written.mode, 'entry');
    assert.strictEqual(written.author, 'vscode/arbor-test/summary-model');
    const last = readEntries(file).pop()!;
    assert.strictEqual(last.type, 'compaction');
    assert.match(String(last.summary), /Written by the Arbor test model/);
    assert.strictEqual(last.usage, undefined);
    assert.ok(fs.readFileSync(file, 'utf8').startsWith(before), 'existing bytes untouched');
  });

  it('a failing model writes nothing and the error names the model and the way forward', async () => {
    await vscode.commands.executeCommand('arbor.chooseSummarizerModel', 'vscode:arbor-test/failing-model');
    const shown = await failedCompact('lm-failing', 'error', 'arbor-test/failing-model');
    assert.match(shown, /quota/);
    assert.match(shown, /Choose Summarizer Model/);
    assert.match(shown, /Nothing was written/);
    assert.ok(models.requests.length >= 1 && models.requests.every((r) => r.model === 'failing-model'));
  });

  it('a model the user did not allow (NoPermissions) writes nothing and says how to allow it', async () => {
    await vscode.commands.executeCommand('arbor.chooseSummarizerModel', 'vscode:arbor-test/refusing-model');
    const shown = await failedCompact('lm-refusing', 'error', 'arbor-test/refusing-model');
    assert.match(shown, /may not use this model: allow it when VS Code asks/, shown);
    assert.match(shown, /Nothing was written/);
  });

  it('a model VS Code does not offer is a warning with the models it does offer; nothing is asked or written', async () => {
    restore.push(await withSetting('summarizer.provider', 'vscode'), await withSetting('summarizer.languageModel', 'arbor-test/gone'));
    const shown = await failedCompact('lm-gone', 'warning', 'arbor-test/gone');
    assert.match(shown, /arbor-test\/summary-model/, 'names what VS Code offers');
    assert.strictEqual(models.requests.length, 0);
  });
});
