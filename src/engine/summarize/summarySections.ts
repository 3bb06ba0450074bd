import { doneItemLine, type ParsedSummary } from './parseSummary';

/**
 * The sections a reader is shown of a summary, each as markdown (empty when
 * absent): the one model of what a summary holds, for the panel and for
 * `arbor summary`. Nothing the entry holds is left out: a Pinned part or any
 * other section outside the format goes to `other`, the split turn's part to
 * `turnContext`.
 */
export interface SummarySections {
  goal: string;
  constraints: string;
  done: string;
  inProgress: string;
  blocked: string;
  decisions: string;
  nextSteps: string;
  criticalContext: string;
  /** The split-turn part (original request, early progress, context for the kept suffix). */
  turnContext: string;
  /** Text outside the known sections: the preamble, the Pinned part, sections a model added. */
  other: string;
}

export function summarySections(parsed: ParsedSummary): SummarySections {
  const bullets = (items: string[]) => items.map((t) => `- ${t}`).join('\n');
  const other: string[] = [];
  if (parsed.preamble) other.push(parsed.preamble);
  for (const u of parsed.unknownSections) other.push(`${u.heading ? `### ${u.heading}\n\n` : ''}${u.body}`);
  return {
    goal: bullets(parsed.goal),
    constraints: bullets(parsed.constraints),
    done: parsed.done.map(doneItemLine).join('\n'),
    inProgress: parsed.inProgress.map((t) => `- [ ] ${t}`).join('\n'),
    blocked: bullets(parsed.blocked),
    decisions: parsed.decisions.map((d) => (d.rationale ? `- **${d.title}**: ${d.rationale}` : `- **${d.title}**`)).join('\n'),
    nextSteps: parsed.nextSteps.map((t, i) => `${i + 1}. ${t}`).join('\n'),
    criticalContext: bullets(parsed.criticalContext),
    turnContext: parsed.turnContext ?? '',
    other: other.join('\n\n'),
  };
}

/** The sections in reading order, with their titles. */
export const SECTION_TITLES: [keyof SummarySections, string][] = [
  ['goal', 'Goal'],
  ['constraints', 'Constraints & Preferences'],
  ['done', 'Done'],
  ['inProgress', 'In Progress'],
  ['blocked', 'Blocked'],
  ['decisions', 'Key Decisions'],
  ['nextSteps', 'Next Steps'],
  ['criticalContext', 'Critical Context'],
  ['turnContext', 'Split-turn context'],
  ['other', 'Other notes'],
];
