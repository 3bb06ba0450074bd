// The Sessions view on long sessions: a line shows a page of its newest entries (pages.ts), and the
// layout takes in Pi-style appends without a rebuild (SessionLayout.extend).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadSession } from '../../../src/engine/session/loadSession';
import { readAppended } from '../../../src/engine/session/tail';
import { SessionLayout } from '../../../src/engine/tree/layout';
import { LinePages } from '../../../src/engine/tree/pages';
import { LineRows, TREE_FILTERS } from '../../../src/engine/tree/rowFilter';
import { oracleCases } from '../../support/fixtures';

function sameLayout(a: SessionLayout, b: SessionLayout): void {
  const n = b.index.entryCount;
  assert.deepStrictEqual([...a.mainLine], [...b.mainLine], 'main line');
  assert.strictEqual(a.leafIndex, b.leafIndex);
  assert.deepStrictEqual(a.extraRoots, b.extraRoots);
  for (let i = 0; i < n; i++) {
    assert.deepStrictEqual(a.branchesAt(i), b.branchesAt(i), `branches at ${i}`);
    assert.strictEqual(a.lineStart(i), b.lineStart(i), `line start of ${i}`);
    assert.strictEqual(a.latestUnder(i), b.latestUnder(i), `latest under ${i}`);
    assert.strictEqual(a.isOnActivePath(i), b.isOnActivePath(i));
  }
}

describe('vscode tree paging', () => {
  it('shows the newest page of a long line, then earlier pages; appended entries add rows', () => {
    const pages = new LinePages(3);
    const line = [10, 11, 12, 13, 14, 15, 16, 17];
    assert.deepStrictEqual(pages.page('f', -1, line), { hiddenBefore: 5, hiddenAfter: 0, shown: [15, 16, 17] });
    assert.strictEqual(pages.showMore('f', -1, line, 'later'), false, 'nothing later');
    assert.strictEqual(pages.showMore('f', -1, line, 'earlier'), true);
    assert.deepStrictEqual(pages.page('f', -1, line), { hiddenBefore: 2, hiddenAfter: 0, shown: [12, 13, 14, 15, 16, 17] });
    assert.deepStrictEqual(pages.page('f', -1, [...line, 18]).shown, [12, 13, 14, 15, 16, 17, 18], 'an append adds a row');
    assert.strictEqual(pages.showMore('f', -1, line, 'earlier'), true);
    assert.strictEqual(pages.showMore('f', -1, line, 'earlier'), false, 'all shown');
    assert.deepStrictEqual(pages.page('f', -1, [1, 2]), { hiddenBefore: 0, hiddenAfter: 0, shown: [1, 2] }, 'a short line is never paged');
    // Another line of the same file, and a line that changed: back to its newest page.
    assert.deepStrictEqual(pages.page('f', 4, line).shown, [15, 16, 17]);
    assert.deepStrictEqual(pages.page('f', -1, [20, 21, 22, 23, 24]).shown, [22, 23, 24]);
  });

  it('moves the window to a revealed entry: extends it when close, else a page around it with rows on both sides', () => {
    const line = Array.from({ length: 3000 }, (_, i) => i + 100);
    const pages = new LinePages(200);
    assert.strictEqual(pages.include('g', -1, line, line[2990]), false, 'already shown');
    // Close to the window that runs to the end: the window grows (10 entries of context above).
    assert.strictEqual(pages.include('g', -1, line, line[2500]), true);
    assert.deepStrictEqual(pages.page('g', -1, line).hiddenBefore, 2490);
    assert.strictEqual(pages.page('g', -1, line).hiddenAfter, 0);
    // Far away: a page around it, and "later" entries below.
    assert.strictEqual(pages.include('g', -1, line, line[100]), true);
    const p = pages.page('g', -1, line);
    assert.deepStrictEqual([p.hiddenBefore, p.shown.length, p.hiddenAfter], [90, 200, 2710]);
    assert.strictEqual(p.shown[10], line[100]);
    // Appends do not move a window that stops before the end.
    assert.deepStrictEqual(pages.page('g', -1, [...line, 9999]).shown, p.shown);
    assert.strictEqual(pages.showMore('g', -1, line, 'later'), true);
    assert.deepStrictEqual(pages.page('g', -1, line).shown.length, 400);
    for (let k = 0; k < 14; k++) pages.showMore('g', -1, line, 'later');
    const back = pages.page('g', -1, line);
    assert.strictEqual(back.hiddenAfter, 0, 'down to the end again');
    assert.deepStrictEqual(pages.page('g', -1, [...line, 9999]).shown.slice(-1), [9999], 'and following appends');
  });

  it('extends the layout for Pi-style appends and matches a rebuild; anything else asks for a rebuild', async () => {
    // Side branches laid out before the append (extend updates them) or only after it (laid out then).
    for (const [c, branchesFirst] of oracleCases().flatMap(
      (x) =>
        [
          [x, false],
          [x, true],
        ] as const,
    )) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-extend-'));
      try {
        const file = path.join(dir, 's.jsonl');
        fs.copyFileSync(c.sessionFile, file);
        const index = await loadSession(file);
        const layout = new SessionLayout(index);
        if (branchesFirst) layout.latestUnder(0);
        let leaf = index.leafId!;
        const lines: string[] = [];
        for (let k = 0; k < 3; k++) {
          const id = `ext0000${k}`;
          lines.push(
            JSON.stringify({
              type: 'message',
              id,
              parentId: leaf,
              timestamp: new Date().toISOString(),
              message: { role: 'user', content: `more ${k}`, timestamp: k },
            }),
          );
          leaf = id;
        }
        fs.appendFileSync(file, lines.join('\n') + '\n');
        assert.strictEqual((await readAppended(index)).added, 3);
        assert.strictEqual(layout.extend(), true, `${c.name}: extended`);
        sameLayout(layout, new SessionLayout(index));
        assert.strictEqual(layout.mainLine[layout.mainLine.length - 1], index.leafIndex);

        // A new branch (a child of an earlier entry): the layout says it cannot extend.
        const early = index.record(1).id;
        fs.appendFileSync(
          file,
          JSON.stringify({
            type: 'message',
            id: 'ext00100',
            parentId: early,
            timestamp: new Date().toISOString(),
            message: { role: 'user', content: 'elsewhere', timestamp: 9 },
          }) + '\n',
        );
        await readAppended(index);
        assert.strictEqual(layout.extend(), false, `${c.name}: a branch needs a rebuild`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('the rows of a line after Pi-style appends (messages, a label on an older entry) equal rows computed afresh, under every filter', async () => {
    for (const c of oracleCases()) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-rows-'));
      try {
        const file = path.join(dir, 's.jsonl');
        fs.copyFileSync(c.sessionFile, file);
        const index = await loadSession(file);
        const layout = new SessionLayout(index);
        const cached = new LineRows();
        for (const f of TREE_FILTERS) cached.rows(layout, -1, layout.mainLine, f.id);
        // A user message, an assistant reply, then a label on the first entry of the main line (Pi appends it under the leaf).
        let leaf = index.leafId!;
        const target = index.record(layout.mainLine[0]).id;
        const entries = [
          { type: 'message', id: 'rows0001', message: { role: 'user', content: 'one more', timestamp: 1 } },
          { type: 'message', id: 'rows0002', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], timestamp: 2 } },
          { type: 'label', id: 'rows0003', targetId: target, label: 'late-label' },
          {
            type: 'message',
            id: 'rows0004',
            message: {
              role: 'toolResult',
              toolCallId: 'x',
              toolName: 'bash',
              content: [{ type: 'text', text: 'out' }],
              isError: false,
              timestamp: 3,
            },
          },
        ];
        for (const e of entries) {
          fs.appendFileSync(file, `${JSON.stringify({ ...e, parentId: leaf, timestamp: new Date().toISOString() })}\n`);
          leaf = e.id;
          await readAppended(index);
          assert.strictEqual(layout.extend(), true);
          for (const f of TREE_FILTERS) {
            assert.deepStrictEqual(
              [...cached.rows(layout, -1, layout.mainLine, f.id)],
              [...new LineRows().rows(layout, -1, layout.mainLine, f.id)],
              `${c.name}, ${f.id}, after ${e.id}`,
            );
          }
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
