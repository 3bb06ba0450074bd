/** What each kind of contradiction is called (the CLI's report and the summary panel's checklist: one wording). */
export type ContradictionKind = 'resolvedAsOpen' | 'unsupportedNumber' | 'reverted' | 'testsStatus';

export const CONTRADICTION_TITLES: Readonly<Record<ContradictionKind, string>> = {
  resolvedAsOpen: 'Resolved error stated as open',
  unsupportedNumber: 'Number the span does not hold',
  reverted: 'Revert the span does not hold',
  testsStatus: 'Tests stated otherwise than their last run',
};
