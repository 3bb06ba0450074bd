/** The retention check of a summary (issue 19): the one home for deriving a span's facts and checking them. */
export { deriveFacts, FACT_KINDS, type Fact, type FactKind, type FactSource, type SpanMessage } from './facts';
export { checkRetention, type RetentionReport, type CheckOptions } from './check';
export { putBack, canPutBack, RESTORABLE_KINDS } from './putBack';
export { constraintSentences, isConstraintSentence, isSocial, onlyConstraints } from '../offline/userText';
export { compactionSource, branchSource, entrySource, entrySourceWalk } from './spans';
