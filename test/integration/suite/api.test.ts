// The API activate() returns holds what other extensions use, and nothing for Arbor's own tests (issue 11 item 6).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ArborApi } from '../../../src/vscode/api';
import { EXTENSION_ID, TEST_INTERNALS_COMMAND, arborApi, openCopy } from './arborHelpers';

describe('Extension API', () => {
  it('exports the hook API and session access, no test internals', async () => {
    await arborApi();
    const ext = vscode.extensions.getExtension<ArborApi>(EXTENSION_ID)!;
    const exported = ext.exports as unknown as Record<string, unknown>;
    assert.deepStrictEqual(Object.keys(exported).sort(), [
      'apiVersion',
      'getSession',
      'listSessions',
      'onDidShowSummary',
      'onHook',
      'refresh',
    ]);
    assert.strictEqual(exported.internals, undefined);
    assert.strictEqual(exported.apiVersion, 1);
    // The hook API works through the exports alone.
    const file = await openCopy('01-plain', 'api-hooks');
    let seen = '';
    const sub = ext.exports.onHook('session_before_compact', (e) => {
      seen = e.file;
      return { cancel: true };
    });
    try {
      const r = await vscode.commands.executeCommand<{ kind: string }>('arbor.compact', { file }, { instructions: '', review: false });
      assert.strictEqual(r.kind, 'cancelled');
      assert.strictEqual(seen, file);
    } finally {
      sub.dispose();
    }
  });

  it('the test-mode command is not contributed (not in the palette) and exists only in ExtensionMode.Test', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const pkg = JSON.parse(fs.readFileSync(path.join(ext.extensionPath, 'package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[] };
    };
    assert.ok(!pkg.contributes.commands.some((c) => c.command.startsWith('arbor.test.')));
    assert.ok(
      (await vscode.commands.getCommands(true)).includes(TEST_INTERNALS_COMMAND),
      'registered: the tests run in ExtensionMode.Test',
    );
  });
});
