/** What the user is told when Pi worked while a proposal was reviewed: that one is dropped and Arbor plans again. */
export function piMovedOnNotice(pid: number, what: 'compaction' | 'jump'): string {
  return (
    `Arbor: Pi (pid ${pid}) went on working while the ${what} was reviewed, so it no longer fits Pi's session; nothing was ` +
    `written. Arbor plans the ${what} again at Pi's new leaf: review the new proposal.`
  );
}
