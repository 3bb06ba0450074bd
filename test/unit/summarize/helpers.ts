import * as fs from 'node:fs';
import { fixturePath } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { buildContext } from '../../../src/engine/context/buildContext';
import type { AgentMessage } from '../../../src/engine/session/types';
import type { Summarizer } from '../../../src/engine/summarize/summarizer';
import { createOpenAISummarizer, type OpenAISummarizerOptions } from '../../../src/engine/summarize/providers/openai';
import { createAnthropicSummarizer, type AnthropicSummarizerOptions } from '../../../src/engine/summarize/providers/anthropic';
import type { FakeProviderServer } from '../../support/fakeProvider';

/** Backoff of ~1 ms so retry tests stay fast. */
export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 2, random: () => 0.5 } as const;

export const PLAIN_SESSION = fixturePath('pi-oracle', 'fixtures', '01-plain.jsonl');

/** The context messages of Pi's 01-plain session (a real multi-turn coding session). */
export async function plainMessages(): Promise<AgentMessage[]> {
  const index = await loadSession(PLAIN_SESSION);
  return buildContext(index).messages.map((m) => m.message);
}

export function summaryFixture(name: string): string {
  return fs.readFileSync(fixturePath('summaries', name), 'utf8');
}

export function summaryFixtures(prefix: string): string[] {
  return fs
    .readdirSync(fixturePath('summaries'))
    .filter((f) => f.startsWith(prefix) && f.endsWith('.md'))
    .sort();
}

/** Every key anywhere in a JSON value. */
export function allKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) allKeys(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      allKeys(v, out);
    }
  }
  return out;
}

export type Api = 'openai' | 'anthropic';

export interface FakeSummarizerOptions {
  model?: string;
  stream?: boolean;
  maxRetries?: number;
  timeoutMs?: number;
  apiKey?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  retry?: OpenAISummarizerOptions['retry'];
  maxTokensField?: OpenAISummarizerOptions['maxTokensField'];
}

export const DEFAULT_TEST_MODEL: Record<Api, string> = { openai: 'gpt-4o', anthropic: 'claude-haiku-4-5' };

/** A real provider summarizer (real SDK, real HTTP) pointed at the fake server. */
export function fakeSummarizer(api: Api, server: FakeProviderServer, o: FakeSummarizerOptions = {}): Summarizer {
  const common = {
    apiKey: o.apiKey ?? 'sk-test-key-0123456789abcdef',
    model: o.model ?? DEFAULT_TEST_MODEL[api],
    stream: o.stream,
    maxRetries: o.maxRetries ?? 2,
    timeoutMs: o.timeoutMs ?? 10_000,
    retry: o.retry ?? FAST_RETRY,
    contextWindow: o.contextWindow,
    maxOutputTokens: o.maxOutputTokens,
    env: {},
  };
  if (api === 'openai') {
    const opts: OpenAISummarizerOptions = { ...common, baseURL: server.openaiBaseURL, maxTokensField: o.maxTokensField };
    return createOpenAISummarizer(opts);
  }
  const opts: AnthropicSummarizerOptions = { ...common, baseURL: server.anthropicBaseURL };
  return createAnthropicSummarizer(opts);
}

/** The text of the user prompt and the system prompt as they went over the wire. */
export function wirePrompt(
  api: Api,
  body: { messages: { role: string; content: unknown }[]; system?: unknown },
): { system: string; user: string } {
  if (api === 'openai') {
    const system = body.messages.find((m) => m.role === 'system');
    const user = body.messages.find((m) => m.role === 'user');
    return { system: String(system?.content ?? ''), user: String(user?.content ?? '') };
  }
  return { system: String(body.system ?? ''), user: String(body.messages.find((m) => m.role === 'user')?.content ?? '') };
}

/** Resolves with the rejection of `p` (fails if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
