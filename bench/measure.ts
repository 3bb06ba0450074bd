/**
 * One measurement in a fresh process (so peak memory belongs to one job):
 *   node out/bench/measure.js <naive|arbor|arbor-chars|tree-full|tree-preview|pi> FILE
 * `arbor` is what `arbor plan-compaction` does with the tokenizer estimator
 * (its tables load when the plan first counts); `arbor-chars` the same with
 * the chars estimator.
 * Prints {mode, ms, maxRssMB, detail} as JSON.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadSession } from '../src/engine/session/loadSession';
import { planCompaction } from '../src/engine/compaction/planCompaction';
import { charsEstimator, tokenizerEstimator } from '../src/engine/tokens/estimators';
import { DEFAULT_PI_SETTINGS } from '../src/engine/settings/piSettings';
import { loadTailPreview } from '../src/engine/session/tailPreview';
import { entryContextMessages } from '../src/engine/context/entryMessages';
import { SessionLayout } from '../src/engine/tree/layout';
import { PAGE_SIZE } from '../src/engine/tree/pages';

// A real dynamic import (tsc would turn `import()` into require() under CommonJS).
const importEsm = new Function('u', 'return import(u)') as (u: string) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function run(mode: string, file: string): Promise<unknown> {
  if (mode === 'naive') {
    const text = readFileSync(file, 'utf8');
    let n = 0;
    for (const line of text.split('\n'))
      if (line) {
        JSON.parse(line);
        n++;
      }
    return { lines: n };
  }
  if (mode === 'arbor' || mode === 'arbor-chars') {
    const t0 = performance.now();
    const index = await loadSession(file);
    const t1 = performance.now();
    const estimator = mode === 'arbor-chars' ? charsEstimator : tokenizerEstimator;
    const plan = planCompaction(index, { settings: DEFAULT_PI_SETTINGS.compaction, estimator, contextWindow: 200000 });
    const t2 = performance.now();
    return {
      entries: index.entryCount,
      openAndIndexMs: Math.round(t1 - t0),
      planMs: Math.round(t2 - t1),
      plan: plan.kind,
      firstKept: plan.kind === 'plan' ? plan.firstKeptEntryId : null,
      tokensBefore: plan.kind === 'plan' ? plan.tokensBefore : null,
    };
  }
  if (mode === 'tree-full' || mode === 'tree-preview') {
    // The engine work behind the Sessions view's first page: index (whole file, or the preview of its end),
    // lay out the active path, parse and count the newest page of rows (chars: the tokenizer is preloaded in the editor).
    const index = mode === 'tree-full' ? await loadSession(file) : (await loadTailPreview(file, { bytes: 4 * 1024 * 1024 }))!;
    const layout = new SessionLayout(index);
    const page = layout.mainLine.slice(-PAGE_SIZE);
    await index.load(page);
    let tokens = 0;
    for (const i of page) for (const m of entryContextMessages(index.entry(i))) tokens += charsEstimator.estimate(m);
    return { entries: index.entryCount, mainLine: layout.mainLine.length, pageFirst: index.record(page[0]).id, pageTokens: tokens };
  }
  if (mode === 'pi') {
    const root = path.join(process.cwd(), 'node_modules', '@mariozechner', 'pi-coding-agent');
    const sm = await importEsm(pathToFileURL(path.join(root, 'dist/core/session-manager.js')).href);
    const comp = await importEsm(pathToFileURL(path.join(root, 'dist/core/compaction/compaction.js')).href);
    const session = sm.SessionManager.open(file, path.dirname(file));
    const prep = comp.prepareCompaction(session.getBranch(), { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 });
    return { entries: session.getEntries().length, firstKept: prep?.firstKeptEntryId ?? null };
  }
  throw new Error(`unknown mode ${mode}`);
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  const t0 = process.hrtime.bigint();
  const detail = await run(mode, file);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const maxRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ mode, ms, maxRssMB, detail }) + '\n');
}

void main();
