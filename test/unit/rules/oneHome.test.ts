/**
 * Issue 22: each rule the CLI and the extension share has one home in src/engine. These checks fail when a
 * second copy of a unified rule comes back in src/ (the behavioural tests next to this file compare both sides).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../support/fixtures';
import { DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_ANSWER_CHARS } from '../../../src/engine/summarize/providers/limits';
import { DEFAULT_ESTIMATOR, ESTIMATOR_NAMES } from '../../../src/engine/tokens/estimators';
import { DEFAULT_SUMMARIZER_PROVIDER, EXTENSION_PROVIDERS } from '../../../src/engine/summarize/providers/providerNames';

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
      rule: 'the summarizer providers (their list, default and labels)',
      // Two provider names on one line (a list, a type, a check of each), a list in words, the default, a label.
      pattern: new RegExp(
        String.raw`(['"\x60])(offline|openai|anthropic)\1[^\n]*(['"\x60])(offline|openai|anthropic|pi|vscode)\3|` +
          String.raw`\b(offline|openai|anthropic|pi)(, |\|| or )(openai|anthropic|pi|vscode)\b|\?\?\s*'offline'|` +
          String.raw`\.get<?[^(]*\('summarizer\.provider',\s*'offline'|or an OpenAI-compatible server\)`,
      ),
      home: ['src/engine/summarize/providers/providerNames.ts'],
    },
    {
      rule: "the summary request's deadline (600 s)",
      pattern: /\b600_?000\b|['"`]600['"`]|(deadline|timeout)\w*\W[^\n]*\b600\b/i,
      home: ['src/engine/summarize/providers/limits.ts'],
    },
    {
      rule: 'the answer-size cap (1,000,000 characters)',
      pattern: /['"`]1_?000_?000['"`]|answer\w*\W[^\n]*\b(1_?000_?000|1e6)\b/i,
      home: ['src/engine/summarize/providers/limits.ts'],
    },
    {
      rule: 'the estimators by name and the default one',
      pattern: /['"`]tokenizer['"`]|\bchars(\||, | or )tokenizer\b/,
      home: ['src/engine/tokens/estimators.ts'],
    },
    {
      rule: 'the base URL in effect (configured, else the variable; blank is none)',
      pattern: /(?<!function )\bbaseURLProblem\(|baseURL\s*(\|\||\?\?)|BASE_URL\]|baseURL\]/,
      home: ['src/engine/summarize/providers/limits.ts'],
    },
    {
      rule: '"nothing to compact" and its wording (the extension and the CLI never word or parse it)',
      pattern: /nothing to compact/i,
      // operations.ts words Pi's own answer (its compaction found nothing at Pi's leaf), not Arbor's.
      home: ['src/engine/compaction/nothingToCompact.ts', 'src/piBridge/operations.ts'],
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

  it("package.json's settings take their defaults and choices from the engine's homes", () => {
    const props = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as PackageJson).contributes.configuration
      .properties;
    assert.equal(props['arbor.summarizer.deadlineSeconds'].default, DEFAULT_DEADLINE_SECONDS);
    assert.equal(props['arbor.summarizer.maxAnswerChars'].default, DEFAULT_MAX_ANSWER_CHARS);
    assert.equal(props['arbor.tokenEstimator'].default, DEFAULT_ESTIMATOR);
    assert.deepEqual([...props['arbor.tokenEstimator'].enum!].sort(), [...ESTIMATOR_NAMES].sort());
    assert.equal(props['arbor.summarizer.provider'].default, DEFAULT_SUMMARIZER_PROVIDER);
    assert.deepEqual([...props['arbor.summarizer.provider'].enum!].sort(), [...EXTENSION_PROVIDERS].sort());
  });
});

interface PackageJson {
  contributes: { configuration: { properties: Record<string, { default?: unknown; enum?: string[] }> } };
}
