/**
 * The scratch project the scenarios run in: a tiny Node stockroom inventory (data/stock.csv, a report
 * script, a CSV parser, specs with their own runner, notes, CONTRIBUTING.md with FIXMEs in the code),
 * and the generator's Pi extension (tree navigation command, a dock-scanner command that starts a turn,
 * a low-stock hook on the report's output).
 */

export interface StockRow {
  sku: string;
  aisle: string;
  qty: number;
  description: string;
}

export const STOCK: StockRow[] = [
  { sku: 'HMR-0101', aisle: 'A', qty: 40, description: 'claw hammer' },
  { sku: 'NLS-0102', aisle: 'A', qty: 80, description: 'box of nails' },
  { sku: 'SCR-0201', aisle: 'B', qty: 25, description: 'wood screws' },
  { sku: 'WSH-0202', aisle: 'B', qty: 50, description: 'washers' },
  { sku: 'GLV-0301', aisle: 'C', qty: 120, description: 'work gloves' },
  { sku: 'TPE-0302', aisle: 'C', qty: 180, description: 'duct tape' },
];

export const stockCsv = (rows: StockRow[]): string =>
  ['sku,aisle,qty,description', ...rows.map((r) => `${r.sku},${r.aisle},${r.qty},${r.description}`)].join('\n') + '\n';

/** Units per aisle and in all, as scripts/report.sh prints them. */
export function totals(rows: StockRow[]): { byAisle: Record<string, number>; total: number } {
  const byAisle: Record<string, number> = {};
  for (const r of rows) byAisle[r.aisle] = (byAisle[r.aisle] ?? 0) + r.qty;
  return { byAisle, total: rows.reduce((s, r) => s + r.qty, 0) };
}

/** What `sh scripts/report.sh` prints for `rows`. */
export function reportOutput(rows: StockRow[]): string {
  const t = totals(rows);
  return [
    ...Object.keys(t.byAisle)
      .sort()
      .map((a) => `Aisle ${a}: ${t.byAisle[a]} units`),
    `Total: ${t.total} units`,
  ].join('\n');
}

/** 1-based line number of the first line of `text` containing `needle`. */
export function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`not found: ${needle}`);
  return i + 1;
}

export const REPORT_SH = `#!/bin/sh
# Units per aisle from data/stock.csv, then the total.
# FIXME: blank lines are counted as rows
awk -F, 'NR > 1 { units[$2] += $3 } END { for (a in units) printf "Aisle %s: %d units\\n", a, units[a] }' data/stock.csv | sort
awk -F, 'NR > 1 { total += $3 } END { printf "Total: %d units\\n", total }' data/stock.csv
`;

export const INVENTORY_JS = `// Stock levels in memory, loaded from data/stock.csv.
const fs = require('fs');
const path = require('path');
const { parseCsv } = require('./parser');

const STOCK_FILE = path.join(__dirname, '..', 'data', 'stock.csv');

function loadStock(file = STOCK_FILE) {
  return parseCsv(fs.readFileSync(file, 'utf8')).map((r) => ({
    sku: r.sku,
    aisle: r.aisle,
    qty: Number(r.qty),
    description: r.description,
  }));
}

function addStock(items, sku, quantity) {
  // FIXME: a negative quantity silently lowers the stock
  const item = items.find((i) => i.sku === sku);
  if (!item) throw new Error(\`unknown SKU \${sku}\`);
  item.qty += quantity;
  return item;
}

function totalsByAisle(items) {
  const totals = {};
  for (const i of items) totals[i.aisle] = (totals[i.aisle] || 0) + i.qty;
  return totals;
}

module.exports = { loadStock, addStock, totalsByAisle };
`;

export const PARSER_JS = `// Minimal CSV parser: the first line is the header; no quoting.
function parseCsv(text) {
  const lines = text.split('\\n').filter((l) => l.length > 0);
  const header = lines[0].split(',');
  // FIXME: a trailing space in the last column is kept
  return lines.slice(1).map((line) => {
    const cells = line.split(',');
    const row = {};
    header.forEach((h, i) => (row[h] = cells[i]));
    return row;
  });
}

module.exports = { parseCsv };
`;

export const SPEC_RUN_JS = `// Runs every spec/*.spec.js file; each exports a list of [name, fn] pairs.
const fs = require('fs');
const path = require('path');

let passed = 0;
let total = 0;
for (const file of fs.readdirSync(__dirname).filter((f) => f.endsWith('.spec.js')).sort()) {
  for (const [name, fn] of require(path.join(__dirname, file))) {
    total++;
    try {
      fn();
      passed++;
      console.log(\`ok - \${name}\`);
    } catch (err) {
      console.log(\`not ok - \${name}: \${err.message}\`);
    }
  }
}
console.log(\`\${passed} of \${total} specs passed\`);
process.exit(passed === total ? 0 : 1);
`;

export const inventorySpec = (rows: number) => `const assert = require('assert');
const { loadStock, addStock, totalsByAisle } = require('../src/inventory');

module.exports = [
  ['loadStock reads every row', () => assert.strictEqual(loadStock().length, ${rows})],
  ['totalsByAisle sums units per aisle', () => assert.deepStrictEqual(totalsByAisle(loadStock()), { A: 120, B: 75, C: 300 })],
  ['addStock adds to an existing SKU', () => assert.strictEqual(addStock(loadStock(), 'HMR-0101', 5).qty, 45)],
  ['addStock rejects an unknown SKU', () => assert.throws(() => addStock(loadStock(), 'ZZZ-9999', 1), /unknown SKU ZZZ-9999/)],
];
`;

export const CONTRIBUTING_MD = `# Contributing to stockroom

1. Specs must pass before commit: run \`node spec/run.js\`; it must print "N of N specs passed".
2. SKU format is AAA-0000: three capital letters, a dash, four digits (for example HMR-0101).
3. data/stock.csv is exported by the warehouse system: never edit it by hand.
4. Error messages are lower case and say what was wrong.
`;

export const AISLES_TXT = `Aisle A: hand tools (hammers, nails)
Aisle B: fasteners (screws, washers)
Aisle C: consumables (gloves, tape)
`;

export const SUPPLIERS_TXT = `Fastener Co. supplies aisle B (screws, washers); lead time 5 days.
Glove & Tape Ltd supplies aisle C (gloves, tape); lead time 2 days.
Hammer Works supplies aisle A; lead time 10 days.
Reorder threshold: 100 units per aisle.
`;

export const PACKAGE_JSON = `{
  "name": "stockroom",
  "version": "0.2.0",
  "private": true,
  "description": "Stock levels of the hardware stockroom",
  "scripts": {
    "test": "node spec/run.js",
    "report": "sh scripts/report.sh"
  }
}
`;

/** The project's files with `rows` as its stock. */
export function stockroomFiles(rows: StockRow[] = STOCK): Record<string, string> {
  return {
    'package.json': PACKAGE_JSON,
    'CONTRIBUTING.md': CONTRIBUTING_MD,
    'data/stock.csv': stockCsv(rows),
    'scripts/report.sh': REPORT_SH,
    'src/inventory.js': INVENTORY_JS,
    'src/parser.js': PARSER_JS,
    'spec/run.js': SPEC_RUN_JS,
    'spec/inventory.spec.js': inventorySpec(rows.length),
    'notes/aisles.txt': AISLES_TXT,
    'notes/suppliers.txt': SUPPLIERS_TXT,
  };
}

/**
 * The generator's Pi extension (installed in the temporary agent folder): `/goto {json}` navigates the tree
 * with ctx.navigateTree (Pi 1.6's RPC has no navigation command) and reports through a notify request;
 * `/dock-scan SKU UNITS` sends a custom message that starts a turn; with a threshold, a tool_result hook
 * sends a low-stock custom message (delivered as steering) for every aisle of report.sh's output under it.
 */
export function extensionSource(config: { lowStockThreshold?: number; dockScanner?: boolean }): string {
  return `// stockroom-monitor: the Pi extension of Arbor's scripts/piScenarioSessions.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';

const CONFIG = ${JSON.stringify(config)};

function stockRows(cwd) {
  const lines = fs.readFileSync(path.join(cwd, 'data', 'stock.csv'), 'utf8').split('\\n').filter(Boolean);
  return lines.slice(1).map((l) => {
    const [sku, aisle, qty, description] = l.split(',');
    return { sku, aisle, qty: Number(qty), description };
  });
}

export default function (pi) {
  pi.registerCommand('goto', {
    description: 'Move to another point of the session tree',
    handler: async (args, ctx) => {
      const o = JSON.parse(args);
      try {
        await ctx.waitForIdle();
        const r = await ctx.navigateTree(o.targetId, {
          summarize: o.summarize,
          customInstructions: o.customInstructions,
          label: o.label,
        });
        ctx.ui.notify('goto-done ' + JSON.stringify({ cancelled: Boolean(r && r.cancelled), leafId: ctx.sessionManager.getLeafId() }), 'info');
      } catch (e) {
        ctx.ui.notify('goto-failed ' + String((e && e.message) || e), 'error');
      }
    },
  });
  if (CONFIG.dockScanner)
    pi.registerCommand('dock-scan', {
      description: 'Report a delivery checked in at the dock',
      handler: async (args, ctx) => {
        const [sku, units] = args.trim().split(/\\s+/);
        const row = stockRows(ctx.cwd).find((r) => r.sku === sku);
        pi.sendMessage(
          {
            customType: 'dock-scanner',
            content: \`Dock scanner: delivery checked in for \${sku} (\${row.description}, aisle \${row.aisle}): \${units} units.\`,
            display: true,
            details: { sku, units: Number(units), aisle: row.aisle },
          },
          { triggerTurn: true },
        );
      },
    });
  if (CONFIG.lowStockThreshold)
    pi.on('tool_result', async (event) => {
      if (event.toolName !== 'bash' || !/report\\.sh/.test(String((event.input && event.input.command) || ''))) return;
      const text = (event.content || []).map((c) => c.text || '').join('');
      for (const m of text.matchAll(/^Aisle (\\S+): (\\d+) units$/gm)) {
        if (Number(m[2]) >= CONFIG.lowStockThreshold) continue;
        pi.sendMessage(
          {
            customType: 'stock-monitor',
            content: \`Low-stock alert: aisle \${m[1]} holds \${m[2]} units, below the reorder threshold of \${CONFIG.lowStockThreshold}.\`,
            display: true,
            details: { aisle: m[1], units: Number(m[2]), threshold: CONFIG.lowStockThreshold },
          },
          { deliverAs: 'steer' },
        );
      }
    });
}
`;
}
