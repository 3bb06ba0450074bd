/**
 * Scenario "results": requests whose answers are results (per-aisle totals in a table, the largest aisle,
 * CONTRIBUTING.md's rules restated), a change that introduces an error message and a spec (5 of 5 pass),
 * a notes edit, and an open request (a plan awaiting the user's go).
 */
import { bash, calls, edit, read, say } from './answers';
import { reportOutput, STOCK, stockroomFiles, totals } from './stockroom';
import type { Scenario } from './types';

const t = totals(STOCK);
const NEW_SPEC =
  "  ['addStock rejects a quantity that is not positive', () => " +
  "assert.throws(() => addStock(loadStock(), 'HMR-0101', 0), /quantity must be positive/)],";

export const results: Scenario = {
  name: 'results',
  about: 'Per-aisle totals, the largest aisle, CONTRIBUTING rules restated, a RangeError and its spec (5 of 5), a notes edit, an open plan',
  files: stockroomFiles(),
  steps: [
    {
      label: 'aisle totals',
      action: { prompt: "Can you give me the unit totals per aisle? There's a report script somewhere in scripts/." },
      answers: [
        calls("I'll run the report script.", bash('sh scripts/report.sh')),
        say(
          [
            'Units per aisle, from `scripts/report.sh`:',
            '',
            '| Aisle | Units |',
            '|---|---|',
            ...['A', 'B', 'C'].map((a) => `| ${a} | ${t.byAisle[a]} |`),
            '',
            `Total: ${t.total} units.`,
          ].join('\n'),
        ),
      ],
      expect: reportOutput(STOCK).split('\n'),
    },
    {
      label: 'largest aisle',
      action: { prompt: 'Which aisle holds the most units?' },
      answers: [
        say(
          `Aisle C holds the most: ${t.byAisle.C} units, about 61% of the ${t.total} in stock (A has ${t.byAisle.A}, B has ${t.byAisle.B}).`,
        ),
      ],
    },
    {
      label: 'contributing rules',
      action: { prompt: 'Read CONTRIBUTING.md and tell me which rules I have to follow before I change any code.' },
      answers: [
        calls('', read('CONTRIBUTING.md')),
        say(
          [
            'CONTRIBUTING.md has four rules:',
            '',
            '1. **Specs must pass before commit**: run `node spec/run.js`; it has to print "N of N specs passed".',
            '2. **SKU format AAA-0000**: three capital letters, a dash and four digits (e.g. `HMR-0101`).',
            '3. `data/stock.csv` is exported by the warehouse system, so it must never be edited by hand.',
            '4. Error messages are lower case and say what was wrong.',
          ].join('\n'),
        ),
      ],
      expect: ['Specs must pass before commit', 'SKU format is AAA-0000', 'never edit it by hand'],
    },
    {
      label: 'reject non-positive quantity',
      action: {
        prompt: 'addStock accepts zero and negative quantities. Make it reject them with a RangeError, and add a spec for that.',
      },
      answers: [
        calls('Let me read the function and its specs first.', read('src/inventory.js'), read('spec/inventory.spec.js')),
        calls(
          'The FIXME in `addStock` describes exactly this. I will replace it with the check and add a spec.',
          edit('src/inventory.js', [
            '  // FIXME: a negative quantity silently lowers the stock\n',
            '  if (!(quantity > 0)) throw new RangeError("quantity must be positive");\n',
          ]),
          edit('spec/inventory.spec.js', ['\n];\n', `\n${NEW_SPEC}\n];\n`]),
        ),
        calls('Now the specs, as CONTRIBUTING.md asks.', bash('node spec/run.js')),
        say(
          [
            'Done:',
            '',
            '- `src/inventory.js`: `addStock` now throws `RangeError("quantity must be positive")` for a zero or negative quantity ' +
              '(in place of the FIXME about negative quantities).',
            '- `spec/inventory.spec.js`: new spec "addStock rejects a quantity that is not positive".',
            '',
            '`node spec/run.js`: **5 of 5 specs passed**, so the change can be committed.',
          ].join('\n'),
        ),
      ],
      expect: [
        'Successfully replaced 1 block(s) in src/inventory.js',
        'ok - addStock rejects a quantity that is not positive',
        '5 of 5 specs passed',
      ],
    },
    {
      label: 'totals in notes',
      action: { prompt: "Add today's aisle totals to notes/aisles.txt." },
      answers: [
        calls('', read('notes/aisles.txt')),
        calls(
          '',
          edit('notes/aisles.txt', [
            'Aisle C: consumables (gloves, tape)\n',
            'Aisle C: consumables (gloves, tape)\n\n' +
              `Unit totals (scripts/report.sh): A ${t.byAisle.A}, B ${t.byAisle.B}, C ${t.byAisle.C}; ${t.total} in all.\n`,
          ]),
        ),
        say(`Added a totals line to \`notes/aisles.txt\`: A ${t.byAisle.A}, B ${t.byAisle.B}, C ${t.byAisle.C}, ${t.total} units in all.`),
      ],
      expect: ['Successfully replaced 1 block(s) in notes/aisles.txt'],
    },
    {
      label: 'low-aisle warning plan',
      action: {
        prompt:
          "Next: the report should print a warning for every aisle under 100 units. Show me your plan first, don't edit anything yet.",
      },
      answers: [
        calls('', read('scripts/report.sh')),
        say(
          [
            'Plan for `scripts/report.sh`:',
            '',
            '1. In the per-aisle `awk` END block, after printing an aisle, print `WARNING: aisle X is under 100 units` when its total is below 100.',
            '2. Keep the threshold in a variable at the top of the script (`THRESHOLD=100`) so it is easy to change.',
            '3. Run the report and the specs (`node spec/run.js`) afterwards.',
            '',
            `With today's stock only aisle B (${t.byAisle.B} units) would get the warning. Say go and I'll make the change.`,
          ].join('\n'),
        ),
      ],
      expect: ['for (a in units)'],
    },
  ],
};
