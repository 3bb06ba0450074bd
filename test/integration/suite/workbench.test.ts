// Smoke test: the suite runs inside a VS Code extension host with the test workspace open.
import * as assert from 'assert';
import * as vscode from 'vscode';

describe('VS Code extension host', () => {
  it('runs the tests with the workspace folder open', () => {
    assert.match(vscode.version, /^\d+\.\d+\.\d+/);
    assert.strictEqual(vscode.workspace.workspaceFolders?.length, 1);
  });
});
