import { anyOf, isQuestion, sentencesOf, squash } from './text';

/**
 * How the retention check reads the user's own words (its own reading, not
 * the offline summarizer's): which sentences state a constraint, a rule for
 * all the work ("Always run the tests", "You must keep the API", "From now
 * on, never add dependencies"), as opposed to a request that merely holds
 * such a word ("Add a `mod` function that always returns a non-negative
 * result"); and which messages are pleasantries, not requests. Anchored
 * regexes without nested quantifiers: linear in the text.
 */

/** Words a rule may open with before its verb ("Please avoid ...", "Also, never ..."). */
const LEAD_IN =
  /^(?:(?:please|pls|also|and|but|so|oh|ok|okay|note|remember|important|btw|one more thing|as a rule|in general|from now on|going forward)\b[\s,:;!.]*)+/i;
/** How a rule starts. */
const RULE_OPENING = anyOf(
  ['always', 'never', "don'?t", 'do not', "must(?:n'?t| not)?", 'prefer(?:ably)?', 'avoid', 'make sure', 'ensure', 'only', 'keep'].concat([
    'stick to',
    'no more than',
    'at most',
    'at least',
    'without',
    'no (?=[a-z])',
  ]),
  'i',
  '^',
  '\\b',
);
/** A rule with a subject and a modal verb anywhere in the sentence ("you must", "tests should"). */
const SUBJECT_MODAL = anyOf(
  [
    "must(?:n'?t| not)?",
    "should(?:n'?t| not)?",
    'shall(?: not)?',
    'need to',
    'needs to',
    'have to',
    'has to',
    'may not',
    'cannot',
    "can'?t",
  ],
  'i',
  '\\b(?:you|we|it|everything|all code|the code|tests|each|every \\w+)\\s+',
  '\\b',
);
/** Phrases that make a sentence a standing rule wherever they are. */
const STANDING = /\b(?:from now on|going forward|for the rest of (?:this|the) session|in general|as a rule)\b/i;

/** True when a sentence (not a question) states a constraint or a preference. */
export function isConstraintSentence(sentence: string): boolean {
  const s = sentence.trim();
  if (!s || isQuestion(s)) return false;
  if (STANDING.test(s) || SUBJECT_MODAL.test(s)) return true;
  return RULE_OPENING.test(s.replace(LEAD_IN, ''));
}

/** The constraint sentences of a user's message. */
export function constraintSentences(text: string): string[] {
  return sentencesOf(text, 40).filter(isConstraintSentence);
}

/** True when every sentence of a message is a constraint (it states rules and asks for nothing). */
export function onlyConstraints(text: string): boolean {
  const all = sentencesOf(text, 20);
  return all.length > 0 && all.every(isConstraintSentence);
}

const PLEASANTRY = anyOf(
  ['thanks', 'thank you', 'thx', 'ty', 'ok', 'okay', 'great', 'cool', 'nice', 'perfect', 'good', 'yes', 'no', 'sure', 'bye', 'cheers']
    .concat(['got it', 'awesome', "that'?s all", 'that is all', 'all good', 'looks good', 'lgtm', "you'?re welcome", 'welcome'])
    .concat(['no problem', 'glad', 'hi', 'hello', 'hey', 'good (?:morning|afternoon|evening)']),
  'i',
  '^',
  '\\b',
);
const ASKS = /\b(?:next|then|please|can you|could you|add|fix|run|make|write|create|update|change|show|tell)\b|\bnow\s+\w/i;

/** Thanks, acknowledgements and sign-offs ("Thanks, that's all.", "You're welcome!"): not requests, nothing to keep. */
export function isSocial(text: string): boolean {
  const t = squash(text.length > 200 ? text.slice(0, 200) : text);
  return t.length > 0 && t.length < 40 && PLEASANTRY.test(t) && !ASKS.test(t);
}
