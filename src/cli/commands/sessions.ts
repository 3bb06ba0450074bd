import { parseCommand, stringFlag } from '../args';
import { printJson, type Io } from '../output';
import { listSessions, sessionsDirFor } from '../../engine/session/discovery';

/** The Pi sessions of a working directory (default: the current one), newest first. */
export async function sessionsCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, { cwd: { type: 'string' } });
  const cwd = stringFlag(p.flags, 'cwd') ?? process.cwd();
  const dir = sessionsDirFor(cwd);
  const sessions = await listSessions(dir);
  if (p.flags.json) {
    printJson(io, { dir, sessions });
    return 0;
  }
  io.out(`${dir}: ${sessions.length} session${sessions.length === 1 ? '' : 's'}`);
  for (const s of sessions) io.out(`  ${s.timestamp}  ${(s.size / 1024).toFixed(0).padStart(7)} KB  ${s.file}`);
  return 0;
}
