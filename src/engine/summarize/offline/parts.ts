import type { SummaryRequest } from '../summarizer';
import type { Extraction } from './extract';
import type { Earlier } from './earlier';
import type { Focus } from './instructions';

/** What one render of the offline checkpoint reads (checkpoint.ts), and the caps it renders within. */

export interface Caps {
  constraints: number;
  done: number;
  inProgress: number;
  blocked: number;
  decisions: number;
  nextSteps: number;
  files: number;
  commands: number;
  errors: number;
  notes: number;
  item: number;
}

export interface Parts {
  x: Extraction;
  earlier: Earlier;
  kind: SummaryRequest['kind'];
  focus: Focus;
  /** The request of the turn the compaction splits (its start is summarized apart, its rest kept). */
  openTurnRequest?: string;
  /** The kept messages after the span start a new turn: its last turn is over, whatever its outcome. */
  keptAfter?: boolean;
  cwd?: string;
}
