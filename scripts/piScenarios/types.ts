/** What a scenario of scripts/piScenarioSessions.ts is made of: a scratch project, Pi's settings, and steps. */
import type { Behaviour } from '../../test/support/fakeProvider';

/** Where a navigation goes: an entry of an earlier step (its user message, or its last assistant message). */
export interface StepEntry {
  step: string;
  entry: 'user' | 'final';
}

export type Action =
  /** The user sends a prompt (RPC `prompt`) and Pi runs until it settles. */
  | { prompt: string }
  /** The user sends a prompt and aborts it (RPC `abort`) once `afterDeltas` text deltas have streamed. */
  | { abortPrompt: string; afterDeltas: number }
  /** A user `!command` (RPC `bash`): its output goes into the session as a bashExecution message. */
  | { bash: string }
  /** An extension command (RPC `prompt` with `/name args`); `triggersTurn`: it starts a turn of its own. */
  | { command: string; triggersTurn: boolean }
  /** A manual compaction (RPC `compact`). */
  | { compact: { customInstructions?: string } }
  /** Tree navigation through the generator's extension command `/goto` (Pi's RPC has no navigation command). */
  | { navigate: { to: StepEntry; summarize: boolean; customInstructions?: string; label?: string } };

export interface Step {
  /** A short name, unique in the scenario (navigation targets name steps by it). */
  label: string;
  action: Action;
  /** The fake model's answers to the requests this step makes, in order (tool-call rounds, the final answer, summaries). */
  answers: Behaviour[];
  /**
   * Texts that must appear in what Pi recorded for this step (tool results, bash output, extension messages):
   * the scripted answers restate them, so generation stops if the real outputs differ.
   */
  expect?: string[];
  /** The stopReason the step's last assistant message must have (default: stop, or none for steps without one). */
  stopReason?: 'stop' | 'error' | 'aborted' | 'length';
}

export interface Scenario {
  name: string;
  about: string;
  /** The scratch project: relative path → content (`*.sh` files are made executable). */
  files: Record<string, string>;
  /** compaction.keepRecentTokens in Pi's settings (the RPC `compact` cut). */
  keepRecentTokens?: number;
  /** The generator's Pi extension: which of its parts this scenario uses. */
  extension?: { lowStockThreshold?: number; dockScanner?: boolean };
  steps: Step[];
}
