import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Deterministic generator of large Pi-format sessions for benchmarks: turns
 * of user requests, assistant messages with thinking and read/edit/write/bash
 * tool calls, tool results with sizeable output, usage on every assistant
 * message, an occasional abandoned branch with a branch summary and label,
 * and a compaction every so often. Same seed and size -> same bytes.
 */
export interface GenerateOptions {
  file: string;
  targetBytes: number;
  seed?: number;
  /** Write a compaction entry every this many turns (default 60; 0: never, so the whole session is one span to summarize). */
  compactionEvery?: number;
  /** Most words of a tool result beyond its 150 (default 900; smaller: more, shorter turns in the same bytes). */
  toolOutputExtraWords?: number;
  /** Each line written with a space after every `,` and `:` between values (Python's json.dumps), not compact JSON. */
  spaced?: boolean;
}

/** `JSON.stringify(value)` with `, ` and `: ` between values: strings hold no raw line break, so the indented form's breaks are the separators. */
function spacedJson(value: unknown): string {
  return JSON.stringify(value, null, 1)
    .replace(/([{[])\n */g, '$1')
    .replace(/\n *([}\]])/g, '$1')
    .replace(/,\n */g, ', ');
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

const WORDS = (
  'the a function module test file error value result config parser tree branch session token summary index build cache ' +
  'query request handler update render schema'
).split(' ');

export async function generateSession(
  options: GenerateOptions,
): Promise<{ entries: number; bytes: number; leafId: string; turns: number }> {
  const rand = rng(options.seed ?? 42);
  const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const out = createWriteStream(options.file);
  let bytes = 0;
  let entries = 0;
  let idCounter = 0;
  const newId = () => ((++idCounter * 2654435761) >>> 0).toString(16).padStart(8, '0').slice(-8);
  let t = Date.UTC(2026, 0, 1);
  const ts = () => new Date((t += 1000)).toISOString();
  const write = async (obj: unknown) => {
    const line = (options.spaced ? spacedJson(obj) : JSON.stringify(obj)) + '\n';
    bytes += Buffer.byteLength(line);
    entries++;
    if (!out.write(line)) await once(out, 'drain');
  };
  await write({
    type: 'session',
    version: 3,
    id: '01a228c2-0000-7000-8000-000000000bench',
    timestamp: ts(),
    cwd: '/home/user/bench-project',
  });
  let leaf: string | null = null;
  const append = async (body: Record<string, unknown>) => {
    const id = newId();
    const { type, ...rest } = body;
    await write({ type, id, parentId: leaf, timestamp: ts(), ...rest });
    leaf = id;
    return id;
  };
  await append({ type: 'model_change', provider: 'openai', modelId: 'gpt-4.1' });
  await append({ type: 'thinking_level_change', thinkingLevel: 'medium' });
  let turn = 0;
  let contextTokens = 2000;
  let lastCompactionKeep: string | null = null;
  const compactionEvery = options.compactionEvery ?? 60;
  while (bytes < options.targetBytes) {
    turn++;
    const branchFrom: string | null = leaf;
    const userId = await append({
      type: 'message',
      message: { role: 'user', content: [{ type: 'text', text: `Turn ${turn}: please ${words(12)}` }], timestamp: t },
    });
    if (turn % 40 === 0 && lastCompactionKeep === null) lastCompactionKeep = userId;
    const steps = 2 + Math.floor(rand() * 4);
    for (let s = 0; s < steps; s++) {
      const file = `src/${pick(WORDS)}/${pick(WORDS)}.ts`;
      const tool = pick(['read', 'read', 'edit', 'write', 'bash'] as const);
      const args =
        tool === 'bash'
          ? { command: `npm test -- ${pick(WORDS)}` }
          : tool === 'edit'
            ? { path: file, edits: [{ oldText: words(20), newText: words(24) }] }
            : tool === 'write'
              ? { path: file, content: words(200) }
              : { path: file };
      const callId = `call_${turn}_${s}`;
      contextTokens += 300 + Math.floor(rand() * 400);
      await append({
        type: 'message',
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: words(30) },
            { type: 'text', text: words(15) },
            { type: 'toolCall', id: callId, name: tool, arguments: args },
          ],
          api: 'openai-responses',
          provider: 'openai',
          model: 'gpt-4.1',
          usage: {
            input: contextTokens,
            output: 120,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: contextTokens + 120,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: 'toolUse',
          timestamp: t,
        },
      });
      const outputWords = 150 + Math.floor(rand() * (options.toolOutputExtraWords ?? 900));
      await append({
        type: 'message',
        message: {
          role: 'toolResult',
          toolCallId: callId,
          toolName: tool,
          content: [{ type: 'text', text: words(outputWords) }],
          isError: rand() < 0.05,
          timestamp: t,
        },
      });
    }
    await append({
      type: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `Done with turn ${turn}. ${words(40)}` }],
        api: 'openai-responses',
        provider: 'openai',
        model: 'gpt-4.1',
        usage: {
          input: contextTokens,
          output: 200,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: contextTokens + 200,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: 'stop',
        timestamp: t,
      },
    });
    if (turn % 25 === 0 && branchFrom) {
      // The user went back: a branch summary as a child of the point before this turn.
      const abandoned = leaf;
      leaf = branchFrom;
      const bs = await append({
        type: 'branch_summary',
        fromId: abandoned,
        summary: `## Goal\n- ${words(10)}\n\n## Progress\n### Done\n- [x] ${words(8)}`,
        details: { readFiles: [], modifiedFiles: [] },
      });
      await append({ type: 'label', targetId: bs, label: `retry-${turn}` });
    }
    if (compactionEvery > 0 && turn % compactionEvery === 0 && lastCompactionKeep) {
      await append({
        type: 'compaction',
        summary: `## Goal\n- ${words(20)}\n\n## Next Steps\n1. ${words(10)}`,
        firstKeptEntryId: lastCompactionKeep,
        tokensBefore: contextTokens,
        details: { readFiles: [], modifiedFiles: [] },
      });
      contextTokens = 20000;
      lastCompactionKeep = null;
    }
  }
  out.end();
  await once(out, 'finish');
  return { entries, bytes, leafId: leaf!, turns: turn };
}
