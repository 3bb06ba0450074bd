// Smoke test: the workbench runs with the extension under development and the test workspace open.
import * as assert from 'assert';
import * as path from 'path';
import { screenshot } from '../support/vscode/browser';
import { e2e } from './context';

describe('VS Code workbench', () => {
  it('opens the workspace as an Extension Development Host', async () => {
    const { page } = e2e;
    await page.waitForFunction('document.title.includes("[Extension Development Host]")', undefined, {
      timeout: 30_000,
    });
    assert.ok((await page.title()).includes(path.basename(e2e.workspacePath)), await page.title());
    await screenshot(page, 'workbench');
  });
});
