import { isQuestion, sentences, squash } from './text';

/**
 * How the user's own words are read: which sentences state a constraint (a
 * rule for all the work: "Always run the tests", "You must keep the API",
 * "From now on, never add dependencies") as opposed to a request that merely
 * contains such a word ("Add a `mod` function that always returns a
 * non-negative result"), and which messages are pleasantries, not requests.
 * Linear in the text (anchored regexes without nested quantifiers).
 */

/** Openers stripped before looking at how a sentence starts. */
const OPENER = new RegExp(
  `^(?:(?:${[
    'from now on',
    'going forward',
    'for the rest of this session',
    'also',
    'and',
    'but',
    'so',
    'please',
    'pls',
    'oh',
    'note',
    'remember',
    'important',
    'ok',
    'okay',
    'one more thing',
    'btw',
    'as a rule',
    'in general',
  ].join('|')})\\b[,:;!.]?\\s*)+`,
  'i',
);
/** A sentence that starts with one of these states a rule. */
const RULE_START = new RegExp(
  `^(?:${[
    'always',
    'never',
    "don't",
    'do not',
    'dont',
    'must',
    "mustn't",
    'must not',
    'prefer',
    'preferably',
    'avoid',
    'make sure',
    'ensure',
    'only',
    'keep',
    'stick to',
    'no more than',
    'at most',
    'at least',
    'without',
  ].join('|')})\\b`,
  'i',
);
/** A rule stated with a subject and a modal anywhere in the sentence. */
const MODAL_RULE = new RegExp(
  `\\b(?:you|we|it|everything|all code|the code|tests|each|every \\w+)\\s+(?:${[
    'must',
    "mustn't",
    'must not',
    'should',
    "shouldn't",
    'should not',
    'shall',
    'shall not',
    'need to',
    'needs to',
    'have to',
    'has to',
    'may not',
    'cannot',
    "can't",
  ].join('|')})\\b`,
  'i',
);
/** Words that make a whole sentence a standing rule wherever they appear. */
const STANDING = /\b(?:from now on|going forward|for the rest of this session|in general|as a rule)\b/i;

/** True when a sentence (not a question) states a constraint or a preference. */
export function isConstraintSentence(sentence: string): boolean {
  const s = sentence.trim();
  if (!s || isQuestion(s)) return false;
  if (STANDING.test(s) || MODAL_RULE.test(s)) return true;
  return RULE_START.test(s.replace(OPENER, ''));
}

/** The user's constraint sentences in a message. */
export function constraintSentences(text: string): string[] {
  return sentences(text, 40).filter(isConstraintSentence);
}

/** True when every sentence of a message is a constraint (it states rules and asks for nothing). */
export function onlyConstraints(text: string): boolean {
  const all = sentences(text, 20);
  return all.length > 0 && all.every(isConstraintSentence);
}

const SOCIAL =
  /^(?:thanks|thank you|thx|ty|ok|okay|great|cool|nice|perfect|good|yes|no|sure|bye|cheers|got it|awesome|that's all|that is all|all good|looks good|lgtm)\b/i;

/** Thanks, acknowledgements and sign-offs ("Thanks, that's all."): not requests. */
export function isSocial(text: string): boolean {
  const t = squash(text);
  return (
    t.length < 40 &&
    SOCIAL.test(t) &&
    !/\b(?:next|then|please|can you|could you|add|fix|run|make|write|create|update|change)\b|\bnow\s+\w/i.test(t)
  );
}
