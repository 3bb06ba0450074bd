import { clip, isQuestion, sentences, trimEndChars } from './text';
import { detachedText } from '../../text/detachedText';

/** A choice the assistant stated, with its reason when it gave one (read by the offline extraction). */
export interface Decision {
  title: string;
  rationale: string;
  /** Index of the message that stated it (-1 for one read from an earlier summary). */
  messageIndex?: number;
  /** A user's redirection in reply to an offer or a question: it declined what was offered. */
  declinesOffer?: boolean;
}

/** Words that mark a choice (not narration). */
const CHOICE_CUES =
  /\b(?:decided|decide to|chose|choose|chosen|opted|opt for|going with|go with|instead of|rather than|switched to|switch to|settled on|picked)\b/i;
/** Intentions, which count as decisions only with a stated reason. */
const INTENT_CUES = /\b(?:I'll|I will|I'm going to|let's|we'll|we will|I'd rather)\b/i;
const REASONS = [
  ' because ',
  ' since ',
  ' so that ',
  ' to avoid ',
  ' as it ',
  ' as the ',
  ' given that ',
  ' which keeps ',
  ' which avoids ',
];

/** Splits a sentence at its first reason connective: [choice, reason]. */
function splitReason(sentence: string): [string, string] {
  const lower = sentence.toLowerCase();
  let at = -1;
  let len = 0;
  for (const r of REASONS) {
    const i = lower.indexOf(r);
    if (i > 0 && (at < 0 || i < at)) {
      at = i;
      len = r.length;
    }
  }
  if (at < 0) {
    const dash = sentence.search(/ [–—] /);
    if (dash > 0) return [sentence.slice(0, dash), sentence.slice(dash + 3)];
    return [sentence, ''];
  }
  return [sentence.slice(0, at), sentence.slice(at + len)];
}

/** Someone acting: a choice has an agent ("I", "we", "let's") or is stated as one ("decided", "chose", "opted"). */
const AGENT = /\b(?:I|I'll|I've|I'm|I'd|we|we'll|we've|let's|decided|chose|opted|settled)\b/;

/** The decision a sentence states (a choice someone made, or an intention with its reason), or null: a prediction is none. */
export function decisionOf(sentence: string): Decision | null {
  if (isQuestion(sentence)) return null;
  const [choice, reason] = splitReason(sentence);
  const strong = CHOICE_CUES.test(sentence) && AGENT.test(sentence);
  if (!strong && !(INTENT_CUES.test(choice) && reason)) return null;
  // Detached from the message text they were cut from (kept for the whole span).
  return {
    title: detachedText(clip(trimEndChars(choice, '.:;,'), 160)),
    rationale: reason ? detachedText(clip(trimEndChars(reason, '.'), 200)) : '',
  };
}

/** How a user redirects the work: "instead", "leave X alone", "not now", "a different idea", "let's not", "rather". */
const REDIRECT = new RegExp(
  `\\b(?:${[
    'instead',
    'leave (?:the |it |that |this |them )?[\\w./-]{0,60} ?alone',
    'not now',
    'different idea',
    "let's not",
    'let us not',
    'rather than',
    'rather not',
    "don't (?:bother|touch|change)",
    'do not (?:touch|change)',
    'skip (?:it|that|the)',
    'forget (?:it|that|about)',
  ].join('|')})\\b`,
  'i',
);

/** Words that turn an offer down. */
const REFUSAL = /\b(?:not now|no|nope|let's not|let us not|rather not|don't bother|skip (?:it|that)|forget (?:it|that|about)|leave it)\b/i;
/** A reply that opens by taking the offer. */
const ACCEPTANCE = /^\s*(?:yes|yep|sure|ok|okay|go ahead|please do|do it)\b/i;

/**
 * A redirection or refusal the user stated, or null: the sentence that says
 * it (with the next one when it is as short as "Not now."), and what it
 * declined when the answer before it ended with an offer or a question.
 */
export function userDecisionOf(message: string, offer: string | null = null): Decision | null {
  const all = sentences(message, 20);
  const at = all.findIndex((s) => !isQuestion(s) && REDIRECT.test(s));
  if (at < 0) return null;
  let said = all[at];
  if (said.length < 30 && at + 1 < all.length) said = `${said} ${all[at + 1]}`;
  const title = detachedText(clip(trimEndChars(said, '.:;,'), 200));
  if (!offer) return { title, rationale: "the user's call" };
  // Only a refusal declines the offer ("Yes, but use vitest instead" accepts it, redirecting how).
  const refuses = REFUSAL.test(said) && !ACCEPTANCE.test(all[0] ?? '');
  return {
    title,
    rationale: detachedText(`the user's call, in reply to: "${clip(offer, 140)}"`),
    ...(refuses ? { declinesOffer: true } : {}),
  };
}

/** A workaround the assistant states after a failure ("grep is not available here; using bash instead"); a plain retry is none. */
const WORKAROUND = /\b(?:instead|work(?:ing)? around|workaround|fall(?:ing)? back|not available|isn't available|unavailable)\b/i;

/**
 * A workaround sentence with the failure it answers as its reason, or null:
 * of the turn's failures, the one whose tool or target the sentence names
 * ("grep is not available" answers grep's "not found"), else the newest.
 */
export function workaroundOf(
  sentence: string,
  failures: readonly { what: string; error: string; name?: string; target?: string }[] = [],
): Decision | null {
  if (isQuestion(sentence) || !WORKAROUND.test(sentence)) return null;
  const lower = sentence.toLowerCase();
  const named = failures.filter((f) => [f.name, f.target].some((w) => !!w && w.length >= 3 && lower.includes(w.toLowerCase())));
  const failure = named.length ? named[named.length - 1] : failures[failures.length - 1];
  return {
    title: detachedText(clip(trimEndChars(sentence, '.:;,'), 200)),
    rationale: failure ? detachedText(clip(`${failure.what}: ${failure.error}`, 200)) : '',
  };
}
