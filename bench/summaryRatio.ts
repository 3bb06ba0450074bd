/**
 * `node out/bench/summaryRatio.js` (after `npm run compile`): the size of the
 * offline summary against the span it summarizes, on the 10 MB and 100 MB
 * generated sessions (bench/.data, made by generateSession as `npm run bench`
 * does). Two spans per session: what a compaction of the leaf summarizes
 * (since the last compaction) and, as the worst case, every message on the
 * leaf's path. Reports tokens (o200k tokenizer) and the ratio
 * summary / span; the summary must stay under about 1,500 tokens.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { loadSession } from '../src/engine/session/loadSession';
import { planCompaction } from '../src/engine/compaction/planCompaction';
import { messagesAt } from '../src/engine/context/messageSpan';
import { buildSummaryRequest } from '../src/engine/summarize/prompts';
import { offlineSummaryText, SUMMARY_MAX_TOKENS } from '../src/engine/summarize/providers/offline';
import { serializeConversation } from '../src/engine/summarize/serialize';
import { tokenizerEstimator, charsEstimator } from '../src/engine/tokens/estimators';
import type { AgentMessage } from '../src/engine/session/types';

const repo = path.resolve(__dirname, '..', '..');
const dataDir = path.join(repo, 'bench', '.data');

function tokens(text: string): number {
  return tokenizerEstimator.estimate({ role: 'user', content: text });
}

function measure(label: string, messages: AgentMessage[]): void {
  // The span as the summarizer reads it (chars/4 for the span: tokenizing 100 MB adds minutes and nothing to the ratio).
  let spanChars = 0;
  for (let i = 0; i < messages.length; i += 2000) spanChars += serializeConversation(messages.slice(i, i + 2000)).length;
  const spanTokens = Math.ceil(spanChars / 4);
  const t0 = process.hrtime.bigint();
  // The offline summarizer reads the messages, not the prompt: the request is built without serializing the span again.
  const request = { ...buildSummaryRequest({ kind: 'history', messages: [], maxOutputTokens: 16384 }), messages };
  const summary = offlineSummaryText(request);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const sumTokens = tokens(summary);
  const charTokens = charsEstimator.estimate({ role: 'user', content: summary });
  process.stdout.write(
    `  ${label.padEnd(34)} ${String(messages.length).padStart(7)} messages, span ~${spanTokens.toLocaleString('en')} ` +
      (`tokens -> summary ${sumTokens} tokens (chars/4: ${charTokens}, bound ${SUMMARY_MAX_TOKENS}); ratio ` +
        `${(sumTokens / spanTokens).toExponential(2)}; ${ms.toFixed(0)} ms\n`),
  );
}

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const sizes = (process.env.ARBOR_BENCH_SIZES ?? '10,100').split(',').map(Number);
  for (const mb of sizes) {
    const file = path.join(dataDir, `session-${mb}mb.jsonl`);
    if (!existsSync(file)) await generateSession({ file, targetBytes: mb * 1024 * 1024 });
    const index = await loadSession(file);
    process.stdout.write(`\n${(statSync(file).size / 1048576).toFixed(1)} MB session:\n`);
    const plan = planCompaction(index, {
      settings: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 },
      estimator: charsEstimator,
    });
    if (plan.kind === 'plan') measure('compaction span (since last one)', messagesAt(plan.projection, plan.summarizePositions));
    const all: AgentMessage[] = [];
    for (const i of index.pathTo(index.leafIndex)) {
      const e = index.entry(i) as { type: string; message?: AgentMessage };
      if (e.type === 'message' && e.message) all.push(e.message);
    }
    measure('every message on the path', all);
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
