/**
 * fast-check generators of Pi sessions: sequences of turns (user, assistant
 * with tool calls, tool results, bash runs, custom messages, metadata) with
 * occasional branches back to an earlier entry and compactions.
 */
import fc from 'fast-check';

type Step =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string; calls: { name: string; path: string }[]; usage: number; stop: string }
  | { kind: 'bash'; command: string; output: string }
  | { kind: 'custom_message'; text: string }
  | { kind: 'meta'; type: 'model_change' | 'thinking_level_change' | 'label' | 'custom' | 'session_info' | 'mystery' }
  | { kind: 'branch'; back: number; summary: boolean }
  | { kind: 'compaction'; keepBack: number };

const text = fc.oneof(
  { weight: 9, arbitrary: fc.string({ minLength: 0, maxLength: 400 }) },
  // Text that looks like the keys the loader's byte scan looks for.
  { weight: 1, arbitrary: fc.constantFrom('a "toolCall" in prose', 'the "nestedCalls" key', '{"type":"toolCall","name":"read"}') },
);
const path = fc.constantFrom('src/a.ts', 'src/b.ts', 'README.md', 'test/x.test.ts');

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('user' as const), text }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      text,
      calls: fc.array(fc.record({ name: fc.constantFrom('read', 'write', 'edit', 'bash'), path }), { maxLength: 3 }),
      usage: fc.nat({ max: 50000 }),
      stop: fc.constantFrom('stop', 'toolUse', 'error', 'aborted', 'length'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bash' as const), command: text, output: text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('custom_message' as const), text }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('meta' as const),
      type: fc.constantFrom(
        'model_change',
        'thinking_level_change',
        'label',
        'custom',
        'session_info',
        'mystery',
      ) as fc.Arbitrary<'model_change'>,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('branch' as const), back: fc.nat({ max: 30 }), summary: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compaction' as const), keepBack: fc.nat({ max: 20 }) }) },
);

export const sessionArb = fc.array(stepArb, { minLength: 1, maxLength: 60 });

/** Turns steps into JSONL text in Pi's key order. */
export function renderSession(steps: Step[]): string {
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'prop', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp/prop' })];
  const ids: string[] = [];
  let leaf: string | null = null;
  let n = 0;
  const ts = '2026-01-01T00:00:01.000Z';
  const add = (body: Record<string, unknown>) => {
    const id = (++n).toString(16).padStart(8, '0');
    const { type, ...rest } = body;
    lines.push(JSON.stringify({ type, id, parentId: leaf, timestamp: ts, ...rest }));
    ids.push(id);
    leaf = id;
    return id;
  };
  let pendingCalls: { id: string; name: string }[] = [];
  for (const s of steps) {
    switch (s.kind) {
      case 'user':
        add({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: s.text }], timestamp: 1 } });
        break;
      case 'assistant': {
        const calls = s.calls.map((c, k) => ({
          type: 'toolCall',
          id: `c${n}_${k}`,
          name: c.name,
          arguments: c.name === 'bash' ? { command: c.path } : { path: c.path },
        }));
        add({
          type: 'message',
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: s.text }, ...calls],
            provider: 'p',
            model: 'm',
            usage: { input: s.usage, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: s.usage + 1 },
            stopReason: s.stop,
            timestamp: 2,
          },
        });
        pendingCalls = calls.map((c) => ({ id: c.id, name: c.name }));
        for (const c of pendingCalls) {
          const message: Record<string, unknown> = {
            role: 'toolResult',
            toolCallId: c.id,
            toolName: c.name,
            content: [{ type: 'text', text: s.text.repeat(3) }],
            isError: false,
            timestamp: 3,
          };
          // A script tool's result records the calls it made (Pi 1.6 nestedCalls), as the last key.
          if (c.name === 'bash' && s.usage % 3 === 0)
            message.nestedCalls = { calls: [{ name: 'edit', arguments: { path: 'src/nested.ts' } }] };
          add({ type: 'message', message });
        }
        pendingCalls = [];
        break;
      }
      case 'bash':
        add({
          type: 'message',
          message: {
            role: 'bashExecution',
            command: s.command,
            output: s.output,
            exitCode: 0,
            cancelled: false,
            truncated: false,
            timestamp: 4,
          },
        });
        break;
      case 'custom_message':
        lines.push(
          JSON.stringify({
            type: 'custom_message',
            customType: 'ext',
            content: s.text,
            display: true,
            id: (++n).toString(16).padStart(8, '0'),
            parentId: leaf,
            timestamp: ts,
          }),
        );
        leaf = n.toString(16).padStart(8, '0');
        ids.push(leaf);
        break;
      case 'meta':
        if (s.type === 'model_change') add({ type: 'model_change', provider: 'p', modelId: 'm2' });
        else if (s.type === 'thinking_level_change') add({ type: 'thinking_level_change', thinkingLevel: 'high' });
        else if (s.type === 'label') add({ type: 'label', targetId: ids[0] ?? 'none', label: 'lbl' });
        else if (s.type === 'custom') add({ type: 'custom', customType: 'state', data: { a: 1 } });
        else if (s.type === 'session_info') add({ type: 'session_info', name: 'named' });
        else add({ type: 'mystery_kind', payload: [1, 2, 3] });
        break;
      case 'branch': {
        if (ids.length === 0) break;
        const from = leaf;
        leaf = ids[Math.max(0, ids.length - 1 - s.back)];
        if (s.summary)
          add({
            type: 'branch_summary',
            fromId: from,
            summary: '## Goal\n- explored',
            details: { readFiles: ['README.md'], modifiedFiles: [] },
          });
        break;
      }
      case 'compaction': {
        if (ids.length === 0) break;
        add({
          type: 'compaction',
          summary: '## Goal\n- earlier work',
          firstKeptEntryId: ids[Math.max(0, ids.length - 1 - s.keepBack)],
          tokensBefore: 1000,
          details: { readFiles: ['src/a.ts'], modifiedFiles: ['src/b.ts'] },
        });
        break;
      }
    }
  }
  return lines.join('\n') + '\n';
}
