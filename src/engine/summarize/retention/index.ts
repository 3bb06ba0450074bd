/** The retention check of a summary (issues 19 and 32): the one home for deriving a span's facts and checking them. */
export {
  deriveFacts,
  FACT_KINDS,
  STATUS_LABELS,
  type Fact,
  type FactKind,
  type FactSource,
  type SpanEvidence,
  type SpanFacts,
  type SpanMessage,
} from './facts';
export { checkRetention, type RetentionReport, type CheckOptions } from './check';
export { CONTRADICTION_TITLES, type Contradiction, type ContradictionKind } from './contradictions';
export { putBack, canPutBack, RESTORABLE_KINDS } from './putBack';
export { constraintSentences, isConstraintSentence, isSocial, onlyConstraints } from './userText';
export { createFactReader, readFacts, type FactReading, type TurnStatus } from './reader';
export { compactionSource, branchSource, entrySource, entrySourceWalk } from './spans';
