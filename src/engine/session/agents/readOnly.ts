import { ArborUsageError } from '../diagnostics';
import { agentName, type AgentKind } from './agentKind';
import { sniffAgent } from './loadForeign';

/** A write asked of another agent's session (compact, navigate, label, restore, upgrade): nothing was written. */
export class ReadOnlySessionError extends ArborUsageError {
  constructor(
    readonly file: string,
    readonly agent: AgentKind,
  ) {
    super(`read-only: ${agentName(agent)} session (${file}); Arbor reads it but never writes it, and nothing was written`);
    this.name = 'ReadOnlySessionError';
  }
}

/** Refuses every write to a session not written by Pi (the one check every write path goes through). */
export function assertWritable(session: { file: string; agent: AgentKind }): void {
  if (session.agent !== 'pi') throw new ReadOnlySessionError(session.file, session.agent);
}

/** assertWritable for a file not loaded yet (its agent told from its first lines): before a lock file or a plan is made. */
export async function assertWritableFile(file: string): Promise<void> {
  // A file that cannot be read here is left to the write path, which reports it as it always has.
  const agent = await sniffAgent(file).catch(() => undefined);
  if (agent === 'claude-code' || agent === 'codex') throw new ReadOnlySessionError(file, agent);
}
