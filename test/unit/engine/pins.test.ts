import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ensurePinned,
  ensurePinnedBeforeFileLists,
  formatPinnedBlock,
  isPinLabel,
  pinLabel,
  PINNED_BLOCK_MAX_CHARS,
  PINNED_NOTE_MAX_CHARS,
  PINNED_TOTAL_MAX_CHARS,
  PIN_TEXT_MAX_CHARS,
  stripPinned,
  unpinLabel,
} from '../../../src/engine/compaction/pins';
import { compactSession } from '../../../src/engine/operations/compact';
import { loadSession } from '../../../src/engine/session/loadSession';
import { appendEntries } from '../../../src/engine/session/writer';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import { DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';
import { fixturePath } from '../../support/fixtures';
import { pinnedPartCaption, pinnedPartView, takePinnedParts } from '../../../src/engine/compaction/pinnedParts';
import { parseSummary } from '../../../src/engine/summarize/parseSummary';
import { summarySections } from '../../../src/engine/summarize/summarySections';

const PIN_TEXT = 'Prefer small pure functions. Always run `npm test` after an edit.';

function copyShop(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pins-'));
  const file = path.join(dir, 'shop.jsonl');
  fs.copyFileSync(fixturePath('retention', 'shop-session.jsonl'), file);
  return file;
}

async function compact(file: string) {
  const r = await compactSession({
    file,
    summarizer: createOfflineSummarizer(),
    estimator: 'chars',
    piSettings: DEFAULT_PI_SETTINGS,
    compaction: { keepRecentTokens: 60 },
  });
  assert.equal(r.kind, 'compacted');
  if (r.kind !== 'compacted') throw new Error('not compacted');
  return r.entry;
}

async function moreWork(file: string, n: number) {
  const index = await loadSession(file);
  await appendEntries(index, [
    { type: 'message', message: { role: 'user', content: [{ type: 'text', text: `Step ${n}: add a log line to src/log${n}.ts.` }] } },
    {
      type: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `Added the log line to src/log${n}.ts (${n} lines).` }],
        stopReason: 'stop',
      },
    },
    { type: 'message', message: { role: 'user', content: [{ type: 'text', text: `Step ${n}b: and a test.` }] } },
    { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: `Test added for step ${n}.` }], stopReason: 'stop' } },
  ] as unknown as { type: string }[]);
}

describe('pins', () => {
  it('a pin label: pin, pinned, pin:…, 📌… (case-insensitive, trimmed)', () => {
    for (const l of ['pin', 'PIN', ' Pinned ', 'pin: rules', 'Pin:x', '📌', '📌 rules']) assert.ok(isPinLabel(l), l);
    for (const l of ['', 'spin', 'pins', 'pinned-later', 'pineapple', 'important', undefined]) assert.ok(!isPinLabel(l), String(l));
    assert.equal(pinLabel(undefined), '📌');
    assert.equal(pinLabel('rules'), '📌 rules');
    assert.equal(pinLabel('pin'), 'pin');
    assert.equal(unpinLabel('📌 rules'), 'rules');
    assert.equal(unpinLabel('pin: rules'), 'rules');
    assert.equal(unpinLabel('PINNED'), '');
    assert.equal(unpinLabel('rules'), 'rules');
  });

  it('the Pinned part goes before the file lists a summary (one Pi wrote) ends with; a hostile tail is linear and safe', () => {
    const block = formatPinnedBlock([{ id: 'e1', kind: 'entry', label: 'pin', text: 'keep me' }] as Parameters<
      typeof formatPinnedBlock
    >[0]);
    const pi =
      '## Goal\n- x\n\n## Critical Context\n- y\n\n<read-files>\na.txt\n</read-files>\n\n<modified-files>\nb.txt\n</modified-files>';
    const out = ensurePinnedBeforeFileLists(pi, block);
    assert.ok(out.indexOf(block) > 0 && out.indexOf(block) < out.indexOf('<read-files>'), out);
    assert.ok(out.endsWith('<modified-files>\nb.txt\n</modified-files>'));
    assert.equal(ensurePinnedBeforeFileLists(out, block), out, 'already there: unchanged');
    const split = '## Goal\n- x\n\n---\n\n**Turn Context (split turn):**\n\n## Original Request\n- y\n\n<read-files>\na.txt\n</read-files>';
    const pinnedSplit = ensurePinnedBeforeFileLists(split, block);
    assert.ok(pinnedSplit.indexOf(block) < pinnedSplit.indexOf('**Turn Context'), pinnedSplit);
    assert.ok(pinnedSplit.endsWith('<read-files>\na.txt\n</read-files>'));
    const hostile = `## Goal\n${' '.repeat(1 << 20)}</modified-files>`;
    assert.ok(ensurePinnedBeforeFileLists(hostile, block).includes(block));
  });

  it('the pinned block is bounded, with a visible note for what was cut or left out', () => {
    const big = 'x'.repeat(PIN_TEXT_MAX_CHARS * 3);
    const pins = Array.from({ length: 5 }, (_, k) => ({ id: `id${k}`, label: '📌', kind: 'user', text: big }));
    const block = formatPinnedBlock(pins);
    assert.ok(block.length < PINNED_TOTAL_MAX_CHARS + 1000, `${block.length}`);
    assert.match(block, /\[pinned text cut here: \d+ more characters; the whole text is entry id4\]/);
    assert.match(block, /older pinned entries not shown, over the pinned-text limit: id0, id1, id2/);
    // Hostile labels cannot break the tag.
    assert.ok(formatPinnedBlock([{ id: 'a', label: '📌 "><script>', kind: 'user', text: 't' }]).includes(`label="📌 '''script'"`));
  });

  it('30,000 pins: the whole Pinned part, its list of ids left out included, stays within PINNED_BLOCK_MAX_CHARS', () => {
    const pins = Array.from({ length: 30000 }, (_, k) => ({
      id: `pinned-entry-${k}-${'z'.repeat(100)}`,
      label: `📌 ${'l'.repeat(500)}`,
      kind: 'user',
      text: `text ${k} ${'x'.repeat(k % 3000)}`,
    }));
    const block = formatPinnedBlock(pins);
    assert.ok(block.length <= PINNED_BLOCK_MAX_CHARS, `${block.length} > ${PINNED_BLOCK_MAX_CHARS}`);
    const note = block.slice(block.lastIndexOf('\n') + 1);
    assert.match(note, /^\(\d+ older pinned entries not shown, over the pinned-text limit: .* and \d+ more\)$/);
    assert.ok(note.length <= PINNED_NOTE_MAX_CHARS, `${note.length}`);
    assert.ok(block.includes('pinned-entry-29999-'), 'the newest pin is shown');
  });

  it('any pins, ids, labels and texts: the Pinned part is within its bound and every pin is shown or counted', () => {
    const pinArb = fc.record({
      id: fc.string({ maxLength: 300 }),
      label: fc.string({ maxLength: 300 }),
      kind: fc.string({ maxLength: 100 }),
      text: fc.string({ minLength: 1, maxLength: 4000 }),
    });
    fc.assert(
      fc.property(fc.array(pinArb, { minLength: 1, maxLength: 60 }), (pins) => {
        const block = formatPinnedBlock(pins);
        assert.ok(block.length <= PINNED_BLOCK_MAX_CHARS, `${block.length}`);
        const shown = block.split('\n<pinned id=').length - 1 + (block.startsWith('<pinned id=') ? 1 : 0);
        const m = /\((\d+) older pinned/.exec(block);
        assert.equal(shown + (m ? Number(m[1]) : 0), pins.length);
      }),
      { numRuns: 300 },
    );
  });

  it("a compaction with 30,000 pinned entries: its Pinned part is within the bound and the summary within the summarizer's budget", async function () {
    const file = copyShop();
    const index = await loadSession(file);
    const added = await appendEntries(
      index,
      Array.from({ length: 30000 }, (_, k) => ({
        type: 'message',
        message: { role: 'user', content: [{ type: 'text', text: `rule ${k}: keep it short` }] },
      })) as unknown as { type: string }[],
    );
    const again = await loadSession(file);
    await appendEntries(again, added.map((e) => ({ type: 'label', targetId: e.id, label: '📌' })) as unknown as { type: string }[]);
    await moreWork(file, 1);
    const summarizer = createOfflineSummarizer();
    const entry = await compact(file);
    const start = entry.summary.indexOf('### Pinned');
    assert.ok(start >= 0);
    const pinnedPart = entry.summary.slice(
      start,
      entry.summary.indexOf(')', entry.summary.indexOf('older pinned entries not shown', start)) + 1,
    );
    assert.ok(pinnedPart.length <= PINNED_BLOCK_MAX_CHARS, `${pinnedPart.length}`);
    assert.ok(entry.summary.length <= summarizer.maxOutputTokens * 4 + PINNED_BLOCK_MAX_CHARS + 4000, `${entry.summary.length}`);
  });

  it('strip and ensure: the canonical block replaces a changed or missing one, an exact copy is kept', () => {
    const block = formatPinnedBlock([{ id: 'a1', label: 'pin', kind: 'user', text: 'KEEP ME\n## not a heading' }]);
    const summary = `## Goal\n- g\n\n## Critical Context\n- c\n\n${block}`;
    assert.equal(ensurePinned(summary, block), summary);
    assert.equal(stripPinned(summary), '## Goal\n- g\n\n## Critical Context\n- c');
    const altered = summary.replace('KEEP ME', 'KEPT');
    assert.equal(ensurePinned(altered, block), summary);
    assert.equal(ensurePinned('## Goal\n- g', block), `## Goal\n- g\n\n## Critical Context\n\n${block}`);
    assert.equal(ensurePinned(summary, ''), '## Goal\n- g\n\n## Critical Context\n- c', 'unpinned: a stale Pinned part goes');
    assert.equal(stripPinned('no pins here'), 'no pins here');
  });

  it('a pinned entry survives every later compaction verbatim, until its label is removed', async () => {
    const file = copyShop();
    const first = await compact(file);
    assert.ok(first.summary.includes(`kind="user" label="📌 rules">\n${PIN_TEXT}\n</pinned>`), first.summary);
    assert.equal(first.usage, undefined, 'no usage on an offline compaction');
    // Second compaction: the pinned entry is now far behind the previous compaction.
    await moreWork(file, 1);
    const second = await compact(file);
    assert.equal(second.summary.split('<pinned id="r000000e"').length - 1, 1, `the Pinned part once:\n${second.summary}`);
    assert.ok(second.summary.includes(`\n${PIN_TEXT}\n</pinned>`));
    // Unpin (the latest label entry for the target wins), then compact again.
    const index = await loadSession(file);
    await appendEntries(index, [{ type: 'label', targetId: 'r000000e' } as { type: string }]);
    await moreWork(file, 2);
    const third = await compact(file);
    assert.ok(!third.summary.includes(PIN_TEXT), third.summary);
    assert.ok(!third.summary.includes('### Pinned'));
    // Pi reads it as an ordinary compaction: same keys as before.
    assert.deepEqual(Object.keys(third).sort(), [
      'details',
      'firstKeptEntryId',
      'id',
      'parentId',
      'summary',
      'timestamp',
      'tokensBefore',
      'type',
    ]);
  });
});

describe('pinned parts, as a reader shows them', () => {
  const text = fs.readFileSync(fixturePath('summaries', 'pinned-parts.md'), 'utf8');

  it('takes each <pinned> block out of the summary as a pin: id, label, kind, text; the note and the empty heading go too', () => {
    const r = takePinnedParts(text.replace(/\r\n/g, '\n'));
    assert.deepEqual(
      r.pins.map((p) => [p.id, p.label, p.kind]),
      [
        ['a1b2c3d4', '📌 mul-done', 'user'],
        ['e5f6a7b8', 'pin', 'assistant'],
      ],
    );
    assert.equal(r.pins[0].text, "When mul is done, also update the README's command table.\n## Not a heading of the summary");
    assert.match(r.note ?? '', /^\(2 older pinned entries not shown/);
    assert.ok(!r.text.includes('<pinned') && !r.text.includes('</pinned>') && !r.text.includes('### Pinned'), r.text);
    assert.ok(r.text.includes('- Tests run with `npm test`') && r.text.includes('<read-files>'));
  });

  it('the parsed summary holds the pins apart: nothing of them under the other sections', () => {
    const parsed = parseSummary(text);
    assert.equal(parsed.pins.length, 2);
    assert.deepEqual(parsed.unknownSections, []);
    assert.deepEqual(parsed.criticalContext, ['Tests run with `npm test`']);
    const sections = summarySections(parsed);
    assert.equal(sections.other, '');
  });

  it('names a pin by its label without the pin mark, and what it is', () => {
    const [a, b] = parseSummary(text).pins.map(pinnedPartView);
    assert.deepEqual([a.name, a.what, pinnedPartCaption(a)], ['mul-done', 'user message', 'mul-done · user message · entry a1b2c3d4']);
    assert.deepEqual([b.name, pinnedPartCaption(b)], ['', 'assistant reply · entry e5f6a7b8']);
  });

  it('a block without its closing tag, or not at a line start, stays text', () => {
    for (const t of [
      '### Pinned\n<pinned id="x" kind="user" label="pin">\nno end',
      'see <pinned id="x" kind="user" label="p">\nt\n</pinned>',
    ]) {
      const r = takePinnedParts(t);
      assert.deepEqual(r.pins, []);
      assert.equal(r.text, t);
    }
  });

  it('is linear: 200,000 unclosed open tags and a 1 MB pin', () => {
    const many = '<pinned id="x">\n'.repeat(200_000);
    const t0 = Date.now();
    assert.equal(takePinnedParts(many).pins.length, 0);
    const big = `### Pinned\n<pinned id="y" kind="user" label="pin">\n${'x'.repeat(1_000_000)}\n</pinned>`;
    assert.equal(takePinnedParts(big).pins[0].text.length, 1_000_000);
    assert.ok(Date.now() - t0 < 2000, `${Date.now() - t0} ms`);
  });
});
