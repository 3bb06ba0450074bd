// Issue 8 item 1: session rows tell sessions apart (name or first message, last activity, count, size), sorted by last activity.
import * as assert from 'assert';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { arborApi, children, item, labelText, readEntries, sessionNode, sessionsDir, waitFor, workspaceSession } from './arborHelpers';

function lastTimestamp(file: string): number {
  const entries = readEntries(file);
  return Date.parse(String(entries[entries.length - 1].timestamp));
}

describe('Session rows', () => {
  it('are sorted by last activity and say name, relative time, entry count and size; the tooltip has file, cwd, first and last activity', async () => {
    const roots = await children();
    const times = roots.map((n) => lastTimestamp(n.file));
    assert.deepStrictEqual(
      times,
      [...times].sort((a, b) => b - a),
      'most recently active first',
    );
    const misc = workspaceSession('05-misc');
    const ti = await item(roots.find((n) => n.file === misc)!);
    // The name is the title; when an opened copy (an earlier test's) has the same name, it is cut short and what differs follows.
    assert.match(labelText(ti), /^misc: models(, custom messages, errors$|… [›·] )/);
    const count = readEntries(misc).length;
    const kb = Math.round(fs.statSync(misc).size / 1024);
    // The row may end with whether it can be compacted now (tree/compactability.ts).
    const compactNote = '( · (can compact|compacted|read-only|[\\d,]+ tokens ≤ kept [\\d,]+))?';
    const when = '(just now|\\d+ (min|h|d) ago|\\d+/\\d+/\\d+)';
    assert.match(String(ti.description), new RegExp(`^${when} · ${count} entries · ${kb} KB${compactNote}$`));
    // The tooltip's text parts are Markdown-escaped (spaces as &nbsp;, punctuation with backslashes): read them back as text.
    const tip = (ti.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
    for (const part of ['File: ', 'Working directory: ', 'First activity: ', 'Last activity: ', `${count} entries`])
      assert.ok(tip.includes(part), `${part} in ${tip}`);
    assert.ok(tip.includes(misc), 'the file path');
    // Sessions with the same first message are told apart by time and size (the four "Take a look at this project" ones).
    // Only the workspace's own sessions: other tests add identical copies of them a moment apart.
    const own = new Set(['01-plain', '02-compaction', '03-tree', '04-split-turn', '05-misc', '01-pi16'].map(workspaceSession));
    const descriptions = await Promise.all(
      roots.filter((n) => own.has(n.file)).map(async (n) => `${labelText(await item(n))}|${String((await item(n)).description)}`),
    );
    assert.strictEqual(descriptions.length, own.size, 'every workspace session has a row');
    assert.strictEqual(new Set(descriptions).size, descriptions.length, descriptions.join('\n'));
  });

  it('a session not loaded takes the name Pi gives it (/name) and its new entry count, still without being loaded', async () => {
    const file = path.join(sessionsDir(), `2026-01-02T00-00-00-000Z_${randomUUID()}.jsonl`);
    fs.copyFileSync(workspaceSession('05-misc'), file);
    try {
      const { services } = (await arborApi()).internals;
      await waitFor(async () => (await children()).some((n) => n.file === file), 'the copy in the list', 15_000);
      const model = services.store.get(file)!;
      assert.strictEqual(model.index, undefined, 'listed, not loaded');
      const leaf = readEntries(file).pop()!;
      fs.appendFileSync(
        file,
        `${JSON.stringify({ type: 'session_info', id: 'aa11bb22', parentId: leaf.id, timestamp: new Date().toISOString(), name: 'Renamed in Pi' })}\n`,
      );
      await waitFor(async () => labelText(await item(await sessionNode(file))) === 'Renamed in Pi', 'the new name on the row', 15_000);
      assert.match(String((await item(await sessionNode(file))).description), new RegExp(`· ${readEntries(file).length} entries ·`));
      assert.strictEqual(model.index, undefined, 'still not loaded');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
