// Session files of the UI tests' workspace: a test's own copy of a fixture session, and its entries as on disk.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { e2e } from './context';

/**
 * The test's own copy of the fixture workspace's session `idPrefix`, named `<prefix>-…` in the workspace's
 * sessions folder (other UI tests compact and jump the workspace's copy).
 */
export function ownSessionCopy(idPrefix: string, prefix: string): string {
  const fixtures = path.join(e2e.extensionPath, 'test', 'fixtures', 'workspace', '.pi', 'sessions');
  const name = fs.readdirSync(fixtures).find((f) => f.includes(`_${idPrefix}`));
  assert.ok(name, `no session ${idPrefix}`);
  const copy = path.join(e2e.workspacePath, '.pi', 'sessions', `${prefix}-${name}`);
  if (!fs.existsSync(copy)) fs.copyFileSync(path.join(fixtures, name), copy);
  return copy;
}

/** Every entry of a session file, as on disk now. */
export function sessionEntries(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
