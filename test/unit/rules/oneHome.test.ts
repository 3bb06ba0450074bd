/**
 * Issue 22: each rule the CLI and the extension share has one home in src/engine. These checks fail when a
 * second copy of a unified rule comes back in src/ (the behavioural tests next to this file compare both sides).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../support/fixtures';

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const files = sources(path.join(repoRoot, 'src')).map((f) => ({
  rel: path.relative(repoRoot, f).split(path.sep).join('/'),
  text: fs.readFileSync(f, 'utf8'),
}));

/** The files of src/ whose code (comments left out) matches `pattern`. */
function holders(pattern: RegExp): string[] {
  return files
    .filter((f) => pattern.test(f.text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '')))
    .map((f) => f.rel)
    .sort();
}

describe('one home per shared rule (src/engine)', () => {
  const rules: { rule: string; pattern: RegExp; home: string[] }[] = [
    {
      rule: "Pi's compaction defaults",
      pattern: /reserveTokens:\s*16384|keepRecentTokens:\s*20000/,
      home: ['src/engine/settings/piSettings.ts'],
    },
    {
      rule: 'the compaction threshold (window - reserveTokens)',
      pattern: /-\s*[\w.]*\.reserveTokens\b/,
      home: ['src/engine/context/contextTokens.ts'],
    },
    { rule: 'the branch-summary budget', pattern: /branchSummary\.reserveTokens\)/, home: ['src/engine/operations/sessionSettings.ts'] },
    {
      rule: 'the summarizer providers',
      pattern: /'offline'\s*\|\s*'openai'\s*\|\s*'anthropic'/,
      home: ['src/engine/summarize/providers/providerNames.ts'],
    },
    {
      rule: "the providers' key variables",
      pattern: /'(OPENAI|ANTHROPIC)_(API_KEY|BASE_URL)'/,
      home: ['src/engine/summarize/providers/providerNames.ts'],
    },
    { rule: 'the latest summary on a path', pattern: /function latestSummary/, home: ['src/engine/tree/latestSummary.ts'] },
    {
      rule: 'compaction planning for a session (the walk; planCompaction runs it over entries in memory)',
      pattern: /(?<!function\*? )\bplanCompaction(Walk)?\(/,
      home: ['src/engine/compaction/planCompaction.ts', 'src/engine/operations/sessionCompactionPlan.ts'],
    },
    {
      rule: 'the context use (figure, window, threshold state) at a leaf',
      pattern: /(?<!function )\bcontextFigure\(/,
      home: ['src/engine/operations/contextUse.ts'],
    },
    {
      rule: 'the threshold state of a context use',
      pattern: /(?<!function )\bshouldCompact\(/,
      home: ['src/engine/compaction/planCompaction.ts', 'src/engine/operations/contextUse.ts'],
    },
    {
      rule: 'what a compaction entry replaced (and the other lookups of a first kept entry)',
      pattern: /\.id === [\w?.]*\.firstKeptEntryId\b/,
      home: [
        'src/engine/compaction/compactedSpan.ts',
        'src/engine/context/contextNumbers.ts',
        'src/engine/context/projection.ts',
        'src/piBridge/operations.ts',
      ],
    },
    {
      rule: 'what a branch summary replaced (and branch planning)',
      pattern: /(?<!function )\bcollectBranchEntries\(/,
      home: ['src/engine/branch/planBranch.ts', 'src/engine/branch/summarizedBranch.ts'],
    },
    {
      rule: 'branch planning with the budget',
      pattern: /(?<!function )\bbranchSummaryBudget\(/,
      home: ['src/engine/operations/sessionSettings.ts'],
    },
    {
      rule: "a summary's file lists (details, else the text's blocks)",
      pattern: /\.readFiles\s*\)?\s*\?\?|details\??\.readFiles|\.(readFiles|modifiedFiles),\s*parsed\./,
      home: ['src/engine/summarize/summaryFileLists.ts'],
    },
  ];
  for (const r of rules) {
    it(`${r.rule}: only in ${r.home.join(', ')}`, () => {
      assert.deepEqual(holders(r.pattern), r.home);
    });
  }
});
