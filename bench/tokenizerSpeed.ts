/**
 * `node out/bench/tokenizerSpeed.js` (after `npm run compile`): Arbor's o200k
 * counter (bpeCount.ts) against the reference tokenizer (tiktoken's encode_ordinary), in one process,
 * on the same texts: the time each takes to load, its first pass over the
 * texts (cold) and the best of 3 more, in MB (UTF-8) and tokens per second.
 * The texts: every message text of the repository's sessions (the Pi oracle
 * sessions, test fixtures, the sample) with its TypeScript sources and
 * README as file contents, and the message texts of the first MB of the
 * 100 MB bench session (bench/.data, written by estimatorRatio.js).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadRankTable } from '../src/engine/tokens/o200kTable';
import { BpeCounter } from '../src/engine/tokens/bpeCount';
import { measureMessage } from '../src/engine/tokens/messageText';
import type { AgentMessage } from '../src/engine/session/types';

const repo = path.resolve(__dirname, '..', '..');
const MB = 1024 * 1024;

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(ext))
    .map((d) => path.join(d.parentPath, d.name))
    .sort();
}

/** Message texts of a session's lines, up to `maxBytes` of text. */
function messageTexts(file: string, maxBytes = Infinity): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let entry: { type?: string; message?: AgentMessage };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.type !== 'message' || !entry.message) continue;
    // The texts the estimators measure, as they measure them.
    const text = (t: string) => {
      out.push(t);
      bytes += Buffer.byteLength(t);
      return 0;
    };
    measureMessage(entry.message, { text, image: 0 });
    if (bytes >= maxBytes) break;
  }
  return out;
}

/** The texts repeated to at least `minBytes`. */
function atLeast(texts: string[], minBytes: number): string[] {
  const once = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
  return Array.from({ length: Math.max(1, Math.ceil(minBytes / once)) }, () => texts).flat();
}

function pass(count: (t: string) => number, texts: string[]): { ms: number; tokens: number } {
  const t0 = performance.now();
  let tokens = 0;
  for (const t of texts) tokens += count(t);
  return { ms: performance.now() - t0, tokens };
}

function main(): void {
  let t0 = performance.now();
  const counter = new BpeCounter(loadRankTable());
  const oursLoad = performance.now() - t0;
  t0 = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { referenceCount } = require('../test/support/referenceTokenizer') as typeof import('../test/support/referenceTokenizer');
  const refLoad = performance.now() - t0;
  const counters: [string, (t: string) => number][] = [
    ['arbor o200k', (t) => counter.count(t)],
    ['tiktoken (reference, WASM)', referenceCount],
  ];

  const sessions = [...files(path.join(repo, 'test', 'fixtures'), '.jsonl'), ...files(path.join(repo, 'samples'), '.jsonl')];
  const corpora: [string, string[]][] = [
    [
      'repository sessions + sources, repeated to 4 MB',
      atLeast(
        [
          ...sessions.flatMap((f) => messageTexts(f)),
          ...files(path.join(repo, 'src'), '.ts').map((f) => readFileSync(f, 'utf8')),
          readFileSync(path.join(repo, 'README.md'), 'utf8'),
        ],
        4 * MB,
      ),
    ],
  ];
  const bench = path.join(repo, 'bench', '.data', 'session-100mb.jsonl');
  if (existsSync(bench)) corpora.push(['bench session message texts, 4 MB', messageTexts(bench, 4 * MB)]);

  process.stdout.write(`load: arbor o200k ${oursLoad.toFixed(1)} ms, tiktoken ${refLoad.toFixed(1)} ms\n`);
  for (const [name, texts] of corpora) {
    const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
    process.stdout.write(`${name}: ${texts.length} texts, ${(bytes / MB).toFixed(2)} MB\n`);
    const tokens = new Set<number>();
    for (const [label, count] of counters) {
      const cold = pass(count, texts);
      let best = Infinity;
      for (let r = 0; r < 3; r++) best = Math.min(best, pass(count, texts).ms);
      tokens.add(cold.tokens);
      const rate = (ms: number) =>
        `${(bytes / MB / (ms / 1000)).toFixed(1)} MB/s, ${(cold.tokens / (ms / 1000) / 1e6).toFixed(2)} M tokens/s`;
      process.stdout.write(
        `  ${label.padEnd(14)} ${cold.tokens} tokens; first pass ${cold.ms.toFixed(0)} ms (${rate(cold.ms)}); best of 3 ` +
          `${best.toFixed(0)} ms (${rate(best)})\n`,
      );
    }
    process.stdout.write(`  same count: ${tokens.size === 1}\n`);
  }
}

main();
