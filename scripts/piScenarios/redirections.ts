/**
 * Scenario "redirections": the user redirects the work ("instead, use a Map", "leave the parser alone",
 * "not now", "different idea: …"), the model states its plan and a workaround with its reasons (data/stock.csv
 * lists WSH-0202 twice and must not be edited by hand, so duplicates are summed), then a real Pi compaction
 * (RPC compact with custom instructions; the fake model writes the summary) and three more turns after it.
 */
import { bash, calls, edit, read, say } from './answers';
import { STOCK, stockroomFiles, type StockRow } from './stockroom';
import type { Scenario } from './types';

/** The stock with WSH-0202 on two rows (30 and 20 units): a later export appended the second one. */
const ROWS: StockRow[] = [
  ...STOCK.map((r) => (r.sku === 'WSH-0202' ? { ...r, qty: 30 } : r)),
  { sku: 'WSH-0202', aisle: 'B', qty: 20, description: 'washers' },
];

const INDEX_FNS = `function indexBySku(items) {
  return new Map(items.map((i) => [i.sku, i]));
}

function findBySku(index, sku) {
  return index.get(sku);
}

`;
const MERGING_INDEX = `function indexBySku(items) {
  const index = new Map();
  for (const i of items) {
    const seen = index.get(i.sku);
    if (seen) seen.qty += i.qty;
    else index.set(i.sku, { ...i });
  }
  return index;
}
`;
const REQUIRE_OLD = "const { loadStock, addStock, totalsByAisle } = require('../src/inventory');";
const REQUIRE_NEW = "const { loadStock, addStock, totalsByAisle, indexBySku, findBySku } = require('../src/inventory');";
const SPEC_FIND =
  "  ['findBySku finds an item through the index', () => assert.strictEqual(findBySku(indexBySku(loadStock()), 'HMR-0101').qty, 40)],";
const SPEC_ROWS = "  ['indexBySku has one entry per row', () => assert.strictEqual(indexBySku(loadStock()).size, loadStock().length)],";
const SPEC_SKUS =
  "  ['indexBySku has one entry per SKU', () => assert.strictEqual(indexBySku(loadStock()).size, new Set(loadStock().map((i) => i.sku)).size)],";
const SPEC_SUM =
  "  ['indexBySku sums a duplicated SKU', () => assert.strictEqual(findBySku(indexBySku(loadStock()), 'WSH-0202').qty, 50)],";
const SPEC_WARN = [
  "  ['indexBySku warns with the duplicated SKU', () => {",
  '    const warned = [];',
  '    const warn = console.warn;',
  '    console.warn = (m) => warned.push(m);',
  '    try {',
  '      indexBySku(loadStock());',
  '    } finally {',
  '      console.warn = warn;',
  '    }',
  "    assert.deepStrictEqual(warned, ['duplicate SKU WSH-0202: quantities summed']);",
  '  }],',
].join('\n');

const SUMMARY = `## Goal
Add SKU lookup to the stockroom inventory (src/inventory.js): findBySku through a Map keyed by SKU, with specs.

## Constraints & Preferences
- Use a Map keyed by SKU, built once from the loaded items (the user rejected the plain array search).
- Leave src/parser.js alone: the import team owns it.
- CONTRIBUTING.md: specs must pass before commit (\`node spec/run.js\` prints "N of N specs passed"); SKU format AAA-0000 (e.g. HMR-0101, WSH-0202); \
data/stock.csv is exported by the warehouse system and must never be edited by hand; error messages are lower case.
- CSV export: not now.

## Progress
### Done
- [x] \`indexBySku(items)\` (Map keyed by SKU) and \`findBySku(index, sku)\` added and exported in src/inventory.js.
- [x] Duplicated SKUs are merged: indexBySku sums their quantities (WSH-0202: 30 + 20 = 50) and prints \`duplicate SKU WSH-0202: quantities summed\` \
with console.warn.
- [x] Specs added to spec/inventory.spec.js: findBySku finds HMR-0101 (40), one index entry per SKU, WSH-0202 summed to 50. \`node spec/run.js\`: 7 \
of 7 specs passed.

### In Progress
- (none)

### Blocked
- (none)

## Key Decisions
- **Map instead of array search**: the user asked for it; lookups by SKU without scanning.
- **Sum duplicates instead of fixing data/stock.csv**: the file lists WSH-0202 twice (lines 5 and 8, 30 and 20 units); CONTRIBUTING forbids editing \
it by hand and the next export would bring the duplicate back.
- **Warn on duplicates**: the user's idea, so the warehouse team hears about them.

## Next Steps
1. Wait for the user's next request; CSV export was postponed ("not now").

## Critical Context
- The first spec run failed: "indexBySku has one entry per row" (6 !== 7) because of the duplicated WSH-0202; that spec was replaced by "one entry \
per SKU".
- loadStock reads 7 rows; aisle totals A 120, B 75, C 300.`;

export const redirections: Scenario = {
  name: 'redirections',
  about:
    'Redirections (Map instead of array, leave the parser alone, not now, different idea), a workaround with reasons, a Pi compaction, 3 turns after',
  files: stockroomFiles(ROWS),
  keepRecentTokens: 90,
  steps: [
    {
      label: 'lookup plan',
      action: { prompt: 'I need a findBySku(items, sku) in src/inventory.js. A simple array search is fine.' },
      answers: [
        calls(
          'Let me look at the code and the contributing rules first.',
          read('src/inventory.js'),
          read('src/parser.js'),
          read('CONTRIBUTING.md'),
        ),
        say(
          [
            'Plan:',
            '',
            '1. Add `findBySku(items, sku)` to `src/inventory.js` using `items.find((i) => i.sku === sku)` and export it.',
            '2. Let `addStock` reuse it, since it does the same search.',
            '3. Add a spec and run `node spec/run.js` (CONTRIBUTING.md: specs must pass before commit).',
            '',
            'Shall I go ahead?',
          ].join('\n'),
        ),
      ],
      expect: ['function addStock(items, sku, quantity)', 'never edit it by hand'],
    },
    {
      label: 'use a map',
      action: { prompt: 'Instead, use a Map keyed by SKU, built once from the loaded items.' },
      answers: [
        calls('', read('spec/inventory.spec.js')),
        calls(
          'Adding `indexBySku` (builds the Map once) and `findBySku(index, sku)`, plus specs.',
          edit(
            'src/inventory.js',
            ['function addStock(', `${INDEX_FNS}function addStock(`],
            [
              'module.exports = { loadStock, addStock, totalsByAisle };',
              'module.exports = { loadStock, addStock, totalsByAisle, indexBySku, findBySku };',
            ],
          ),
          edit('spec/inventory.spec.js', [REQUIRE_OLD, REQUIRE_NEW], ['\n];\n', `\n${SPEC_FIND}\n${SPEC_ROWS}\n];\n`]),
        ),
        say(
          [
            'Done: `indexBySku(items)` builds a `Map` from SKU to item once, and `findBySku(index, sku)` looks an item up in it. ' +
              'Both are exported, with two new specs.',
            '',
            'While reading I noticed `src/parser.js` splits lines on commas with no quoting, so a description containing a comma ' +
              'would shift the columns. I can fix that next.',
          ].join('\n'),
        ),
      ],
      expect: ['Successfully replaced 2 block(s) in src/inventory.js', 'Successfully replaced 2 block(s) in spec/inventory.spec.js'],
    },
    {
      label: 'leave the parser, run specs',
      action: { prompt: 'Leave the parser alone, the import team owns src/parser.js. Run the specs.' },
      answers: [
        calls("Understood, I won't touch src/parser.js.", bash('node spec/run.js')),
        calls(
          'One spec fails: the index has fewer entries than there are rows. Looking for a duplicated SKU:',
          bash('cut -d, -f1 data/stock.csv | sort | uniq -d'),
        ),
        calls('', bash('grep -n WSH-0202 data/stock.csv')),
        calls(
          'data/stock.csv lists WSH-0202 twice (30 and 20 units). CONTRIBUTING.md says that file is exported by the warehouse system ' +
            'and must not be edited by hand, and the next export would bring the duplicate back anyway. As a workaround, ' +
            'indexBySku will merge duplicated SKUs by summing their quantities, and the spec will count SKUs instead of rows.',
          edit('src/inventory.js', [INDEX_FNS.split('\n\nfunction findBySku')[0] + '\n', MERGING_INDEX]),
          edit('spec/inventory.spec.js', [SPEC_ROWS, `${SPEC_SKUS}\n${SPEC_SUM}`]),
        ),
        calls('', bash('node spec/run.js')),
        say(
          [
            'Specs: **7 of 7 passed**. I left `src/parser.js` untouched.',
            '',
            'What happened: the first run failed ("indexBySku has one entry per row": 6 !== 7) because `data/stock.csv` has WSH-0202 on ' +
              'lines 5 and 8. Workaround: `indexBySku` sums the quantities of a duplicated SKU (WSH-0202 = 50 units) instead of ' +
              'keeping the last row. Reason: the CSV is generated by the warehouse export and must not be edited by hand.',
            '',
            'Next I could add a CSV export of the merged stock.',
          ].join('\n'),
        ),
      ],
      expect: [
        'not ok - indexBySku has one entry per row',
        '6 !== 7',
        '5 of 6 specs passed',
        'WSH-0202\n',
        '5:WSH-0202,B,30,washers',
        '8:WSH-0202,B,20,washers',
        '7 of 7 specs passed',
      ],
    },
    {
      label: 'not now, warn instead',
      action: {
        prompt:
          'Not now. Different idea: keep summing, but print a warning naming each duplicated SKU, so the warehouse team hears about it.',
      },
      answers: [
        calls(
          '',
          edit('src/inventory.js', [
            '    if (seen) seen.qty += i.qty;\n',
            '    if (seen) {\n      console.warn(`duplicate SKU ${i.sku}: quantities summed`);\n      seen.qty += i.qty;\n    }',
          ]),
        ),
        calls('', bash('node spec/run.js')),
        say(
          'Done: `indexBySku` still sums duplicates and now warns `duplicate SKU WSH-0202: quantities summed` for each one ' +
            '(console.warn, so it goes to stderr). Specs: 7 of 7 passed; the warning shows up in their output.',
        ),
      ],
      expect: ['duplicate SKU WSH-0202: quantities summed', '7 of 7 specs passed'],
    },
    {
      label: 'why sum',
      action: { prompt: 'Remind me why we sum them instead of fixing the CSV?' },
      answers: [
        say(
          'Because data/stock.csv is exported by the warehouse system: CONTRIBUTING.md says never to edit it by hand, and a hand fix ' +
            'would be overwritten by the next export, duplicate included. Summing gives the real stock for WSH-0202 (30 + 20 = 50), ' +
            'and the warning tells the warehouse team to fix it at the source.',
        ),
      ],
    },
    {
      label: 'compaction',
      action: { compact: { customInstructions: 'Keep the exact SKU formats and every decision about the parser and the duplicates.' } },
      answers: [say(SUMMARY)],
    },
    {
      label: 'warning spec',
      action: { prompt: 'Add a spec that checks the warning names the SKU.' },
      answers: [
        calls('', read('spec/inventory.spec.js')),
        calls('', edit('spec/inventory.spec.js', ['\n];\n', `\n${SPEC_WARN}\n];\n`])),
        calls('', bash('node spec/run.js')),
        say(
          'Added "indexBySku warns with the duplicated SKU": it captures console.warn and expects exactly ' +
            '`duplicate SKU WSH-0202: quantities summed`. Specs: 8 of 8 passed.',
        ),
      ],
      expect: ['ok - indexBySku warns with the duplicated SKU', '8 of 8 specs passed'],
    },
    {
      label: 'parser decision',
      action: { prompt: 'What did we decide about src/parser.js again?' },
      answers: [
        say('To leave it alone: the import team owns src/parser.js, so we did not change it (its missing quote handling stays as it is).'),
      ],
    },
    {
      label: 'bump version',
      action: { prompt: 'Bump the version in package.json to 0.3.0.' },
      answers: [
        calls('', edit('package.json', ['"version": "0.2.0"', '"version": "0.3.0"'])),
        say('Bumped `package.json` from 0.2.0 to 0.3.0.'),
      ],
      expect: ['Successfully replaced 1 block(s) in package.json'],
    },
  ],
};
