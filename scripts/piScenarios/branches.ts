/**
 * Scenario "branches": a low-stock list first made as a shell script, abandoned by navigating back (Pi's
 * navigateTree through the generator's /goto command, with a branch summary the fake model writes and a
 * label), redone in Node with a spec; inside that branch a sorting change is abandoned in turn (a nested
 * branch summary, with custom instructions), and the next request undoes what the abandoned branch left on disk.
 */
import { bash, calls, edit, read, say, write } from './answers';
import { stockroomFiles } from './stockroom';
import type { Scenario } from './types';

const LOW_SH = `#!/bin/sh
# SKUs under 50 units, from data/stock.csv.
awk -F, 'NR > 1 && $3 < 50 { printf "%s %d (aisle %s)\\n", $1, $3, $2 }' data/stock.csv
`;
const LOW_FN = `function lowStock(items, threshold) {
  return items.filter((i) => i.qty < threshold);
}

`;
const REQUIRE_OLD = "const { loadStock, addStock, totalsByAisle } = require('../src/inventory');";
const REQUIRE_NEW = "const { loadStock, addStock, totalsByAisle, lowStock } = require('../src/inventory');";
const LOW_SPEC = (call: string, skus: string[]) =>
  "  ['lowStock lists SKUs under the threshold', () => " +
  `assert.deepStrictEqual(${call}.map((i) => i.sku), [${skus.map((k) => `'${k}'`).join(', ')}])],`;

const SHELL_SUMMARY = `## Goal
A low-stock list: every SKU under 50 units, started as a shell script.

## Constraints & Preferences
- Threshold: under 50 units.
- Start with a shell script (scripts/low-stock.sh).

## Progress
### Done
- [x] Wrote scripts/low-stock.sh (awk over data/stock.csv); it printed HMR-0101 40 (aisle A) and SCR-0201 25 (aisle B).
- [x] Added a count at the end: it printed "2 SKUs under 50 units".

### In Progress
- (none)

### Blocked
- (none)

## Key Decisions
- **awk over data/stock.csv**: same approach as scripts/report.sh.

## Next Steps
1. (none on this branch)

## Critical Context
- scripts/low-stock.sh is still on disk.`;

const SORT_SUMMARY = `## Goal
Sort the low-stock result by quantity, lowest first.

## Constraints & Preferences
- (none)

## Progress
### Done
- [x] lowStock in src/inventory.js sorts by quantity: \`.sort((a, b) => a.qty - b.qty)\`.
- [x] Test change: "lowStock lists SKUs under the threshold" failed after the sort (4 of 5 specs passed); its expectation became ['SCR-0201', \
'HMR-0101'] and the specs passed again (5 of 5).

### In Progress
- (none)

### Blocked
- (none)

## Key Decisions
- **Update the spec rather than the order**: the new order was what the user asked for.

## Next Steps
1. (none on this branch)

## Critical Context
- The sort and the changed spec are still in src/inventory.js and spec/inventory.spec.js.`;

export const branches: Scenario = {
  name: 'branches',
  about:
    'A shell attempt abandoned with a branch summary (labelled), a Node version with a spec, a nested abandoned sort (summary with instructions)',
  files: stockroomFiles(),
  extension: {},
  steps: [
    {
      label: 'overview',
      action: { prompt: 'Quick overview of this project, please.' },
      answers: [
        calls('', bash('ls data notes scripts spec src'), read('package.json')),
        say(
          [
            '**stockroom** (0.2.0): stock levels of the hardware stockroom.',
            '',
            '- `data/stock.csv`: the stock itself',
            '- `scripts/report.sh`: the stock report (`npm run report`)',
            '- `src/inventory.js` and `src/parser.js`: loading and parsing the stock',
            '- `spec/`: specs with their own runner, `node spec/run.js` (`npm test`)',
            '- `notes/`: notes on aisles and suppliers',
          ].join('\n'),
        ),
      ],
      expect: ['scripts:\nreport.sh', '"name": "stockroom"'],
    },
    {
      label: 'shell low-stock',
      action: { prompt: 'I want a low-stock list: every SKU under 50 units. Start with a shell script, scripts/low-stock.sh.' },
      answers: [
        calls('', write('scripts/low-stock.sh', LOW_SH)),
        calls('', bash('sh scripts/low-stock.sh')),
        say('`scripts/low-stock.sh` lists 2 SKUs under 50 units:\n\n- HMR-0101: 40 (aisle A)\n- SCR-0201: 25 (aisle B)'),
      ],
      expect: ['HMR-0101 40 (aisle A)\nSCR-0201 25 (aisle B)'],
    },
    {
      label: 'shell count',
      action: { prompt: 'Also print how many SKUs are low at the end.' },
      answers: [
        calls(
          '',
          edit('scripts/low-stock.sh', [
            `{ printf "%s %d (aisle %s)\\n", $1, $3, $2 }' data/stock.csv`,
            `{ printf "%s %d (aisle %s)\\n", $1, $3, $2; low++ } END { printf "%d SKUs under 50 units\\n", low }' data/stock.csv`,
          ]),
        ),
        calls('', bash('sh scripts/low-stock.sh')),
        say('Done: the script now ends with a count line, "2 SKUs under 50 units".'),
      ],
      expect: ['SCR-0201 25 (aisle B)\n2 SKUs under 50 units'],
    },
    {
      label: 'back to overview',
      action: { navigate: { to: { step: 'overview', entry: 'final' }, summarize: true, label: 'shell attempt' } },
      answers: [say(SHELL_SUMMARY)],
    },
    {
      label: 'node low-stock',
      action: {
        prompt:
          'Different approach: do the low-stock list in Node, as lowStock(items, threshold) in src/inventory.js with a spec, and delete scripts/low-stock.sh.',
      },
      answers: [
        calls('', read('src/inventory.js'), read('spec/inventory.spec.js')),
        calls(
          'Adding `lowStock`, its spec, and removing the shell script:',
          edit('src/inventory.js', [
            'module.exports = { loadStock, addStock, totalsByAisle };',
            `${LOW_FN}module.exports = { loadStock, addStock, totalsByAisle, lowStock };`,
          ]),
          edit(
            'spec/inventory.spec.js',
            [REQUIRE_OLD, REQUIRE_NEW],
            ['\n];\n', `\n${LOW_SPEC('lowStock(loadStock(), 50)', ['HMR-0101', 'SCR-0201'])}\n];\n`],
          ),
          bash('rm scripts/low-stock.sh'),
        ),
        calls('', bash('node spec/run.js')),
        say(
          'Done: `lowStock(items, threshold)` in `src/inventory.js` returns the items under the threshold (HMR-0101 and SCR-0201 under 50), ' +
            'with the spec "lowStock lists SKUs under the threshold". `scripts/low-stock.sh` is deleted. Specs: 5 of 5 passed.',
        ),
      ],
      expect: [
        'Successfully replaced 1 block(s) in src/inventory.js',
        'Successfully replaced 2 block(s) in spec/inventory.spec.js',
        '5 of 5 specs passed',
      ],
    },
    {
      label: 'sort by quantity',
      action: { prompt: 'Sort the result by quantity, lowest first.' },
      answers: [
        calls(
          '',
          edit('src/inventory.js', [
            'return items.filter((i) => i.qty < threshold);',
            'return items.filter((i) => i.qty < threshold).sort((a, b) => a.qty - b.qty);',
          ]),
        ),
        calls('', bash('node spec/run.js')),
        calls(
          'The spec still expects file order; updating it to the sorted order:',
          edit('spec/inventory.spec.js', ["['HMR-0101', 'SCR-0201']", "['SCR-0201', 'HMR-0101']"]),
        ),
        calls('', bash('node spec/run.js')),
        say(
          '`lowStock` now sorts by quantity, lowest first (SCR-0201 25, then HMR-0101 40). The spec was updated to that order; specs: 5 of 5 passed.',
        ),
      ],
      expect: ['not ok - lowStock lists SKUs under the threshold', '4 of 5 specs passed', '5 of 5 specs passed'],
    },
    {
      label: 'back before sorting',
      action: {
        navigate: { to: { step: 'node low-stock', entry: 'final' }, summarize: true, customInstructions: 'Focus on the test changes.' },
      },
      answers: [say(SORT_SUMMARY)],
    },
    {
      label: 'file order and default',
      action: { prompt: 'Forget the sorting: put lowStock back in file order, and give the threshold a default of 50.' },
      answers: [
        calls('', read('src/inventory.js'), read('spec/inventory.spec.js')),
        calls(
          'The sort from the abandoned attempt is still in both files. Removing it and adding the default:',
          edit('src/inventory.js', [
            'function lowStock(items, threshold) {\n  return items.filter((i) => i.qty < threshold).sort((a, b) => a.qty - b.qty);',
            'function lowStock(items, threshold = 50) {\n  return items.filter((i) => i.qty < threshold);',
          ]),
          edit('spec/inventory.spec.js', [
            "lowStock(loadStock(), 50).map((i) => i.sku), ['SCR-0201', 'HMR-0101']",
            "lowStock(loadStock()).map((i) => i.sku), ['HMR-0101', 'SCR-0201']",
          ]),
        ),
        calls('', bash('node spec/run.js')),
        say(
          'Done: `lowStock(items, threshold = 50)` keeps file order again (HMR-0101, then SCR-0201); the sorting left over from the ' +
            'abandoned attempt is gone from `src/inventory.js` and the spec. Specs: 5 of 5 passed.',
        ),
      ],
      expect: ['.sort((a, b) => a.qty - b.qty)', "['SCR-0201', 'HMR-0101']", '5 of 5 specs passed'],
    },
    {
      label: 'usage note',
      action: { prompt: 'Good. Write a short note in notes/low-stock.txt on how to use it.' },
      answers: [
        calls(
          '',
          write(
            'notes/low-stock.txt',
            "Low-stock list: lowStock(items, threshold = 50) in src/inventory.js.\n\n  const { loadStock, lowStock } = require('./src/inventory');\n" +
              '  lowStock(loadStock());      // SKUs under 50 units, in file order\n  lowStock(loadStock(), 100); // another threshold\n',
          ),
        ),
        say('Wrote `notes/low-stock.txt`: what `lowStock` does, its default threshold of 50, and two usage examples.'),
      ],
      expect: ['Successfully wrote'],
    },
  ],
};
