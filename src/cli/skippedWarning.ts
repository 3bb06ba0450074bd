import type { AgentListingOptions } from '../engine/session/agents/discovery';
import { shownPath } from './commands/files';
import type { Io } from './output';

/** Listing options that warn on stderr about each session file or folder that could not be read (the command goes on). */
export function skippedWarning(io: Io): AgentListingOptions {
  return { onSkipped: (file, reason) => io.err(`arbor: warning: ${shownPath(file)}: ${reason}; skipped`) };
}
