import { stringFlag } from '../args';
import { parseWith, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { printJson, type Io } from '../output';
import { sessionsDirFor } from '../../engine/session/discovery';
import { listedSessions } from '../sessionList';
import { shortField } from '../output';
import { otherAgentSessions } from '../../engine/session/agents/discovery';
import { skippedWarning } from '../skippedWarning';
import { agentName } from '../../engine/session/agents/agentKind';

export const sessionsSpec: CommandSpec = {
  name: 'sessions',
  summary: "The sessions of a working directory (Pi's, Claude Code's and Codex's), newest first, with their titles and agents",
  positionals: [],
  options: {
    cwd: { type: 'string', value: 'DIR', description: 'the working directory whose sessions to list', default: 'the current directory' },
    ...JSON_OPTION,
  },
  examples: ['arbor sessions', 'arbor sessions --cwd ~/src/project --json'],
};

/** The sessions of a working directory (default: the current one), newest first. */
export async function sessionsCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(sessionsSpec, argv);
  const cwd = stringFlag(p.flags, 'cwd') ?? process.cwd();
  const dir = sessionsDirFor(cwd);
  const listed = await listedSessions([dir], await otherAgentSessions(cwd, process.env, skippedWarning(io)));
  if (p.flags.json) {
    const sessions = listed.map(({ title, titleLine, ...s }) => ({ ...s, title: title.title === undefined ? null : titleLine }));
    await printJson(io, { dir, sessions });
    return 0;
  }
  io.out(`${dir}: ${listed.length} session${listed.length === 1 ? '' : 's'}`);
  for (const s of listed) {
    io.out(`  ${shortField(s.titleLine, 120)}${s.agent === 'pi' ? '' : `  [${agentName(s.agent)}]`}`);
    io.out(`    ${shortField(s.timestamp, 40)}  ${(s.size / 1024).toFixed(0).padStart(7)} KB  ${s.file}`);
  }
  return 0;
}
