import type { ContextFigure } from './contextNumbers';

/** The tokens of one role's messages in the context. */
export interface RolePart {
  role: string;
  tokens: number;
  count: number;
}

/**
 * The context figure split into parts that add up to it (issue 34 item 4): the
 * messages by role, each estimated, and one "other" line for what the figure
 * holds besides them. The one home of this split: the context panel and
 * `arbor context` both show it (engine/operations/contextUse.ts computes it).
 */
export interface ContextParts {
  byRole: RolePart[];
  /** The sum of the messages' estimates. */
  messagesTokens: number;
  /** figure − messagesTokens (negative when the messages' estimates exceed the figure). */
  otherTokens: number;
  /** What "other" is, in words. */
  otherMeaning: string;
  /** The figure the parts add up to. */
  total: number;
}

/**
 * The parts of `figure` given the context's messages with their estimates. With a provider's count, "other" is
 * what the provider counted that the session's messages do not hold (the system prompt, the tool definitions
 * and the framing of each message) less the estimator's error on the messages it covers; without one, the
 * figure is the messages' estimate with the system prompt counted once as it is in effect, so "other" is what
 * counting it once saves over counting each system message.
 */
export function contextParts(figure: ContextFigure, messages: readonly { message: { role: string }; tokens: number }[]): ContextParts {
  const byRole = new Map<string, RolePart>();
  let messagesTokens = 0;
  for (const m of messages) {
    const role = m.message.role;
    const part = byRole.get(role) ?? { role, tokens: 0, count: 0 };
    part.tokens += m.tokens;
    part.count++;
    byRole.set(role, part);
    messagesTokens += m.tokens;
  }
  const otherTokens = figure.tokens - messagesTokens;
  return {
    byRole: [...byRole.values()].sort((a, b) => b.tokens - a.tokens),
    messagesTokens,
    otherTokens,
    otherMeaning: otherMeaning(figure, otherTokens),
    total: figure.tokens,
  };
}

function otherMeaning(figure: ContextFigure, otherTokens: number): string {
  if (figure.estimated)
    return otherTokens === 0
      ? "none: the figure is the messages' estimate"
      : 'the system messages counted once, as the one prompt in effect';
  const reported = `the provider's count (${figure.usageTokens.toLocaleString('en-US')} at the last response)`;
  return otherTokens >= 0
    ? `the system prompt, tool definitions and message framing: in ${reported}, not in the session's messages (with the estimates' error)`
    : `the messages' estimates exceed ${reported} by this much`;
}
