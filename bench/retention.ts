/**
 * The retention table of `npm run bench` (issue 19): for each kind of fact,
 * how many of those present in the summarized spans the summary keeps, for
 * the offline summarizer and for the fake provider's answers (the test
 * model that keeps what the prompt asks it to keep), over the sample session,
 * the demo workspace's sessions, Pi's oracle sessions and generated ones.
 * Then the check's own cost on hostile input, as ratios (it must be linear).
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { proposeCompaction } from '../src/engine/operations/compact';
import { createOfflineSummarizer } from '../src/engine/summarize/providers/offline';
import { DEFAULT_PI_SETTINGS } from '../src/engine/settings/piSettings';
import { checkRetention, deriveFacts, entrySource, FACT_KINDS, type FactKind } from '../src/engine/summarize/retention';
import { loadSession } from '../src/engine/session/loadSession';
import type { Summarizer } from '../src/engine/summarize/summarizer';
import { keptAnswer } from '../test/support/fakeProvider/server';
import { hostileSummary, manyFacts } from '../test/support/hostileRetention';

const repo = path.resolve(__dirname, '..', '..');

/** The fake provider's answer to a request, without the HTTP round trip (the same function the fake server answers with). */
const fakeModel: Summarizer = {
  provider: 'fake',
  model: 'echo-kept',
  contextWindow: 128000,
  maxOutputTokens: 16384,
  async summarize(request) {
    return {
      text: keptAnswer('openai', {
        messages: [
          { role: 'system', content: request.systemPrompt },
          { role: 'user', content: request.prompt },
        ],
      }),
    };
  },
};

function sessions(): string[] {
  const dir = (...p: string[]) => path.join(repo, ...p);
  const jsonl = (d: string) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => path.join(d, f));
  return [
    dir('samples', 'sample-session.jsonl'),
    ...jsonl(dir('test', 'fixtures', 'workspace', '.pi', 'sessions')),
    ...jsonl(dir('test', 'fixtures', 'pi-oracle', 'fixtures')),
    ...jsonl(dir('test', 'fixtures', 'pi-oracle', 'fixtures-pi16')),
    ...jsonl(dir('test', 'fixtures', 'retention')),
  ];
}

type Tally = Record<FactKind, { kept: number; present: number }>;
const empty = (): Tally => Object.fromEntries(FACT_KINDS.map((k) => [k, { kept: 0, present: 0 }])) as Tally;

async function tally(
  files: string[],
  summarizer: Summarizer,
  keeps: number[],
): Promise<{ t: Tally; compactions: number; contradicted: number; cannotCheck: number }> {
  const t = empty();
  let compactions = 0;
  let contradicted = 0;
  let cannotCheck = 0;
  for (const file of files) {
    for (const keepRecentTokens of keeps) {
      const p = await proposeCompaction({
        file,
        summarizer,
        estimator: 'chars',
        piSettings: DEFAULT_PI_SETTINGS,
        compaction: { keepRecentTokens },
      });
      if (p.kind !== 'proposal') continue;
      compactions++;
      if (p.retention.contradictions.length) contradicted++;
      if (p.retention.cannotCheck) cannotCheck++;
      for (const f of p.retention.kept) {
        t[f.kind].kept++;
        t[f.kind].present++;
      }
      for (const f of p.retention.missing) t[f.kind].present++;
    }
  }
  return { t, compactions, contradicted, cannotCheck };
}

function ms(f: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    f();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

export async function retentionBench(): Promise<void> {
  const dataDir = path.join(repo, 'bench', '.data');
  mkdirSync(dataDir, { recursive: true });
  const generated = path.join(dataDir, 'session-2mb.jsonl');
  if (!existsSync(generated)) await generateSession({ file: generated, targetBytes: 2 * 1024 * 1024 });
  const files = [...sessions(), generated];
  const keeps = [60, 1000, 4000];
  const offline = await tally(files, createOfflineSummarizer(), keeps);
  const fake = await tally(files, fakeModel, keeps);
  const cell = (x: { kept: number; present: number }) => (x.present ? `${x.kept}/${x.present}` : '–').padStart(11);
  process.stdout.write(`\nretention (facts kept / facts present) over ${files.length} sessions x keepRecentTokens ${keeps.join(', ')}:\n`);
  process.stdout.write(`  ${'kind'.padEnd(12)}${'offline'.padStart(11)}${'fake model'.padStart(11)}\n`);
  for (const k of FACT_KINDS) process.stdout.write(`  ${k.padEnd(12)}${cell(offline.t[k])}${cell(fake.t[k])}\n`);
  const sum = (t: Tally) =>
    FACT_KINDS.reduce((a, k) => ({ kept: a.kept + t[k].kept, present: a.present + t[k].present }), { kept: 0, present: 0 });
  process.stdout.write(
    `  ${'all'.padEnd(12)}${cell(sum(offline.t))}${cell(sum(fake.t))}   (${offline.compactions} / ${fake.compactions} compactions)\n`,
  );
  process.stdout.write(
    `  summaries stating something the span contradicts: offline ${offline.contradicted}, fake model ${fake.contradicted}; ` +
      `spans that cannot be checked: ${offline.cannotCheck} / ${fake.cannotCheck}\n`,
  );

  // The check on hostile input: 4x the summary and 4x the facts should cost about 4x (a quadratic matcher: 16x).
  const small = hostileSummary(256 * 1024);
  const large = hostileSummary(1024 * 1024);
  const fewFacts = manyFacts(2000);
  const moreFacts = manyFacts(8000);
  const base = ms(() => checkRetention(small, fewFacts));
  const bigText = ms(() => checkRetention(large, fewFacts));
  const bigFacts = ms(() => checkRetention(small, moreFacts));
  process.stdout.write(
    `  check on an unbroken hostile summary: 256 KB x 2000 facts ${base.toFixed(0)} ms; 4x the summary ` +
      `${(bigText / base).toFixed(2)}x; 4x the facts ${(bigFacts / base).toFixed(2)}x (linear: about 4x)\n`,
  );
  // The contradictions too (a span's facts with their evidence): hostile lines of claims, numbers and escapes.
  const index = await loadSession(path.join(repo, 'test', 'fixtures', 'retention', 'results-session.jsonl'));
  await index.load(Array.from({ length: index.entryCount }, (_, k) => k));
  const spanFacts = deriveFacts(entrySource(index, index.indexOf('s0000020')));
  const claims = (size: number) => '\u001b[2J reverted: 2 of 5 tests fail, 975 rows. Could not find the exact text\n'.repeat(size / 80);
  const c1 = ms(() => checkRetention(claims(256 * 1024) + small, spanFacts));
  const c4 = ms(() => checkRetention(claims(1024 * 1024) + large, spanFacts));
  process.stdout.write(
    `  check with contradictions (a span's evidence): 256 KB of hostile claims ${c1.toFixed(0)} ms; ` +
      `4x the summary ${(c4 / c1).toFixed(2)}x (linear: about 4x)\n`,
  );
}
