import { clip, isQuestion, trimEndChars } from './text';
import { detachedText } from '../../text/detachedText';

/** A choice the assistant stated, with its reason when it gave one (read by the offline extraction). */
export interface Decision {
  title: string;
  rationale: string;
  /** Index of the message that stated it (-1 for one read from an earlier summary). */
  messageIndex?: number;
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

/** The decision a sentence states (a choice, or an intention with its reason), or null. */
export function decisionOf(sentence: string): Decision | null {
  if (isQuestion(sentence)) return null;
  const [choice, reason] = splitReason(sentence);
  const strong = CHOICE_CUES.test(sentence);
  if (!strong && !(INTENT_CUES.test(choice) && reason)) return null;
  // Detached from the message text they were cut from (kept for the whole span).
  return {
    title: detachedText(clip(trimEndChars(choice, '.:;,'), 160)),
    rationale: reason ? detachedText(clip(trimEndChars(reason, '.'), 200)) : '',
  };
}
