import { stringFlag } from '../args';
import { parseWith, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { printJson, type Io } from '../output';
import { sessionsDirFor } from '../../engine/session/discovery';
import { listedSessions } from '../sessionList';
import { shortField } from '../output';
import { otherAgentSessions } from '../../engine/session/agents/discovery';
import { skippedWarning } from '../skippedWarning';
import { agentName } from '../../engine/session/agents/agentKind';
import { SESSION_ORDER_TEXT, relativeTime } from '../../engine/tree/sessionOrder';

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
  io.out(`${dir}: ${listed.length} session${listed.length === 1 ? '' : 's'}, ${SESSION_ORDER_TEXT}`);
  const now = Date.now();
  for (const s of listed) {
    io.out(`  ${shortField(s.titleLine, 200)}${s.agent === 'pi' ? '' : `  [${agentName(s.agent)}]`}`);
    const firstText = s.firstActivityMs !== undefined ? relativeTime(s.firstActivityMs, now) : '';
    const first = firstText && firstText !== relativeTime(s.lastActivityMs, now) ? `, first ${firstText}` : '';
    const active = `last active ${relativeTime(s.lastActivityMs, now) || 'never'}${first}`;
    io.out(`    ${[active, s.counts, `${(s.size / 1024).toFixed(0)} KB`].filter(Boolean).join(' · ')}  ${shortField(s.file, 400)}`);
  }
  return 0;
}
