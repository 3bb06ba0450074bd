/**
 * Scenario "statuses": requests that end in every status and turns started by something other than a prompt.
 * A report whose output makes the extension's tool_result hook raise a low-stock alert (a custom message the
 * model sees before its answer), a request refused by the provider's content filter, one aborted by the user
 * while streaming, a user `!wc -l` (RPC bash), an answer cut off by the length limit, a 503 then Pi's
 * automatic retry, and a dock-scanner custom message from the extension that starts a turn of its own.
 */
import { bash, calls, read, say } from './answers';
import { reportOutput, STOCK, stockroomFiles, totals } from './stockroom';
import type { Scenario } from './types';

const t = totals(STOCK);
const ESSAY = [
  'A short history of how the aisles got their letters.',
  '',
  'When the stockroom opened, shelves were numbered by the carpenter who built them, which meant that the first shelf',
  'against the north wall was shelf 1 and everything else followed the order in which the wood arrived. ',
  'Within a year nobody could find anything: hammers sat next to gloves, and nails had migrated to three different ',
  'shelves. The first reform grouped goods by what they were used for, hand tools in one run, fasteners in another, ',
  'consumables by the door, and gave each run a letter so that a picking list could say A, B or C instead of ',
  '"the shelf behind the ladder". The letters stuck because they fitted on the narrow labels of the time, and because ',
  'the warehouse system that was introduced later only had a single character for the location. ',
].join('\n');

export const statuses: Scenario = {
  name: 'statuses',
  about:
    'Low-stock hook alert seen by the model, a content_filter refusal, a user abort, a user !wc -l, a length cut-off, a 503 and retry, ' +
    'an extension message that starts a turn',
  files: stockroomFiles(),
  extension: { lowStockThreshold: 100, dockScanner: true },
  steps: [
    {
      label: 'report with alert',
      action: { prompt: 'Run the stock report.' },
      answers: [
        calls('', bash('sh scripts/report.sh')),
        say(
          [
            `Stock report: aisle A ${t.byAisle.A} units, B ${t.byAisle.B}, C ${t.byAisle.C}; ${t.total} in all.`,
            '',
            `The stock monitor also raised a low-stock alert: aisle B holds ${t.byAisle.B} units, below the reorder threshold of 100.`,
          ].join('\n'),
        ),
      ],
      expect: [...reportOutput(STOCK).split('\n'), 'Low-stock alert: aisle B holds 75 units, below the reorder threshold of 100.'],
    },
    {
      label: 'refused blurb',
      action: { prompt: "Write a product blurb for the duct tape that makes fun of our competitor's safety record." },
      answers: [{ type: 'refusal' }],
      stopReason: 'error',
    },
    {
      label: 'aborted essay',
      action: { abortPrompt: 'Write a long history of how the aisles were numbered.', afterDeltas: 6 },
      answers: [{ type: 'text', text: ESSAY, chunkSize: 16, chunkDelayMs: 80 }],
      stopReason: 'aborted',
    },
    {
      label: 'user wc',
      action: { bash: 'wc -l data/stock.csv' },
      answers: [],
      expect: ['7 data/stock.csv'],
    },
    {
      label: 'how many items',
      action: { prompt: 'So how many items does the stock file list?' },
      answers: [say(`${STOCK.length} items: \`wc -l\` counted 7 lines, and the first line of a CSV like this is its header row.`)],
    },
    {
      label: 'cut-off list',
      action: { prompt: 'List every SKU with its full description and supplier.' },
      answers: [
        calls('', read('data/stock.csv')),
        { type: 'length', text: 'Here is every SKU with its description and supplier:\n\n1. HMR-0101 - claw hammer, aisle A, supplied by' },
      ],
      expect: ['HMR-0101,A,40,claw hammer'],
      stopReason: 'length',
    },
    {
      label: 'supplier after 503',
      action: { prompt: 'Read notes/suppliers.txt and tell me who supplies aisle B and how long it takes.' },
      answers: [
        { type: 'status', status: 503, message: 'Service temporarily overloaded' },
        calls('', read('notes/suppliers.txt')),
        say('Fastener Co. supplies aisle B (screws and washers), with a lead time of 5 days.'),
      ],
      expect: ['Fastener Co. supplies aisle B (screws, washers); lead time 5 days.'],
    },
    {
      label: 'dock delivery',
      action: { command: '/dock-scan GLV-0301 40', triggersTurn: true },
      answers: [
        say(
          'Noted: the dock checked in 40 units of GLV-0301 (work gloves) for aisle C. Once the warehouse export updates ' +
            `data/stock.csv, aisle C should show ${t.byAisle.C + 40} units instead of ${t.byAisle.C}. I have not changed any file.`,
        ),
      ],
      expect: ['Dock scanner: delivery checked in for GLV-0301 (work gloves, aisle C): 40 units.'],
    },
    {
      label: 'what to reorder',
      action: { prompt: 'Given all that, what should I reorder today?' },
      answers: [
        say(
          `Aisle B: it is the only aisle under the 100-unit threshold (${t.byAisle.B} units). ` +
            'Order from Fastener Co.; with their 5-day lead time it should go out today. Aisle C is fine, even more so after the glove delivery.',
        ),
      ],
    },
  ],
};
