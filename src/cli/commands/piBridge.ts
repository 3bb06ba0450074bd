import * as path from 'node:path';
import { parseWith, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, shortField, type Io } from '../output';
import { piAgentDir } from '../../engine/session/piAgentDir';
import { bridgeInstallState, installBridge, uninstallBridge } from '../../engine/livePi/install';
import { liveBridges, pisOnFile } from '../../engine/livePi/findLivePi';
import { PI_HOLD_TEXT } from '../../engine/livePi/piProcesses';
import { refusedPis, type RefusedPi } from '../../engine/livePi/refusedPis';
import { SUPPORTED_PI_RANGE } from '../../piBridge/piVersion';
import { removeDeadSockets } from '../../engine/livePi/deadSockets';
import type { RegistryEntry } from '../../engine/livePi/registry';
import { readSessionHeader } from '../../engine/session/discovery';
import type { PiState } from '../../engine/livePi/protocol';

export const piBridgeSpec: CommandSpec = {
  name: 'pi-bridge',
  summary: "installs Arbor's bridge into Pi, removes it, or says which running Pi holds a session",
  positionals: [
    { name: 'ACTION', description: 'install, uninstall or status' },
    { name: 'FILE', description: 'with status: the session file to ask about', optional: true },
  ],
  synopsis: '(install | uninstall | status [FILE])',
  options: { ...JSON_OPTION },
  examples: ['arbor pi-bridge install', 'arbor pi-bridge status ~/.pi/agent/sessions/--home-me-project--/session.jsonl'],
};

/** The bridge bundle shipped next to the CLI (dist/piBridge.js). */
export function bundledBridgePath(): string {
  return path.join(__dirname, 'piBridge.js');
}

function describeState(s: PiState): string {
  const usage = s.contextUsage;
  const ctx = usage
    ? `, context ${usage.tokens === null ? 'unknown until the next response' : `${usage.tokens} / ${usage.contextWindow} tokens`}`
    : '';
  const model = s.model ? `, model ${shortField(`${s.model.provider}/${s.model.id}`, 60)}` : '';
  return `pid ${s.pid}, Pi ${shortField(s.piVersion, 20)}, ${s.idle ? 'idle' : 'busy'}, leaf ${s.leafId ?? '(root)'}${model}${ctx}`;
}

/** install / uninstall / status of Arbor's bridge inside Pi (see README "Using Arbor while Pi runs"). */
export async function piBridgeCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(piBridgeSpec, argv);
  const [action, file, ...extra] = p.positionals;
  const agentDir = piAgentDir();
  const bundle = bundledBridgePath();
  if (action === 'install' && !file) {
    const r = await installBridge(agentDir, bundle);
    if (p.flags.json) await printJson(io, r);
    else if (r.action === 'unchanged') io.out(`the bridge ${r.version} is already installed: ${r.file}`);
    else {
      io.out(
        `${r.action === 'replaced' ? `replaced the bridge ${r.previousVersion} with` : 'installed the bridge'} ${r.version}: ${r.file}`,
      );
      io.out('Pi loads it when it starts: in a running Pi, type /reload (or restart it) to let Arbor work through it.');
    }
    return 0;
  }
  if (action === 'uninstall' && !file) {
    const r = await uninstallBridge(agentDir);
    if (p.flags.json) await printJson(io, r);
    else io.out(r.removed ? `removed ${r.file} (a running Pi keeps it until it restarts)` : `the bridge is not installed (${r.file})`);
    return 0;
  }
  if (action === 'status' && extra.length === 0) {
    const installed = await bridgeInstallState(agentDir, bundle);
    await removeDeadSockets(agentDir);
    if (file) {
      // The file need not be readable (Pi writes it with its first answer): the bridge's announcement names it; its
      // cwd, when readable, is where a Pi without the bridge would run.
      const header = await sessionHeader(file);
      const { bridges, processes } = await pisOnFile(path.resolve(file), { agentDir, ...header });
      const answered = bridges.filter((b): b is { entry: RegistryEntry; state: PiState } => 'state' in b);
      const silent = bridges.filter((b): b is { entry: RegistryEntry; error: string } => 'error' in b);
      const count = bridges.length + processes.length;
      // Pis that loaded the bridge and were refused by it (a version it cannot serve): installing will not help them.
      const refused = processes.length ? await refusedPis(agentDir) : new Map<number, RefusedPi>();
      if (p.flags.json) {
        await printJson(io, {
          installed,
          live: count === 1 && answered.length === 1 ? answered[0].state : null,
          pis: [
            ...answered.map((b) => ({ pid: b.entry.pid, bridged: true, state: b.state })),
            ...silent.map((b) => ({ pid: b.entry.pid, bridged: true, error: b.error })),
            ...processes.map((x) => ({
              pid: x.pid,
              bridged: false,
              hold: x.hold,
              cwd: x.cwd,
              ...(refused.has(x.pid) ? { refusedVersion: refused.get(x.pid)!.piVersion } : {}),
            })),
          ],
          piWithoutBridge: processes.map((x) => ({ pid: x.pid, cwd: x.cwd, hold: x.hold })),
          unanswered: silent[0] ? { pid: silent[0].entry.pid, error: silent[0].error } : null,
          arborWrites: count === 0 ? 'file' : count === 1 && answered.length === 1 ? 'pi' : 'refused',
        });
        return 0;
      }
      io.out(`bridge: ${installText(installed)}`);
      if (count === 0) io.out(`no running Pi holds ${file}: Arbor writes to the file`);
      else io.out(`${count === 1 ? 'one Pi holds' : `${count} Pis hold`} ${file}:`);
      for (const b of answered) io.out(`  live Pi with the bridge: ${describeState(b.state)}`);
      for (const b of silent) io.out(`  Pi with the bridge, pid ${b.entry.pid}, did not answer: ${shortField(b.error, 200)}`);
      for (const x of processes) {
        const v = refused.get(x.pid);
        const who = v
          ? `Pi ${shortField(v.piVersion, 40)}, refused by the bridge (it needs Pi ${SUPPORTED_PI_RANGE})`
          : 'Pi without the bridge';
        io.out(`  ${who}, pid ${x.pid} (${PI_HOLD_TEXT[x.hold]}; runs in ${shortField(x.cwd, 200)})`);
      }
      if (count > 1) io.out(`Arbor will not write to ${file} while more than one Pi holds it (quit all but one, or --force)`);
      else if (processes.length === 1 && refused.has(processes[0].pid))
        io.out(`Arbor will not write to ${file} while it runs (update Pi to ${SUPPORTED_PI_RANGE}, or quit it)`);
      else if (processes.length === 1)
        io.out(`Arbor will not write to ${file} while it runs (install the bridge and type /reload in Pi, or quit Pi)`);
      return 0;
    }
    const bridges = await liveBridges(agentDir);
    if (p.flags.json) {
      await printJson(io, { installed, live: bridges.map((b) => b.state) });
      return 0;
    }
    io.out(`bridge: ${installText(installed)}`);
    if (bridges.length === 0) io.out('no running Pi with the bridge');
    for (const b of bridges) io.out(`${shortField(b.state.sessionFile, 200)}: ${describeState(b.state)}`);
    return 0;
  }
  throw usageError(piBridgeSpec, 'the action is install, uninstall or status [FILE]');
}

/** The session's cwd and id from its header, when readable (Pi writes the file with its first answer). */
async function sessionHeader(file: string): Promise<{ cwd?: string; sessionId?: string }> {
  try {
    const header = await readSessionHeader(file);
    return {
      cwd: typeof header?.cwd === 'string' && header.cwd ? header.cwd : undefined,
      sessionId: typeof header?.id === 'string' && header.id ? header.id : undefined,
    };
  } catch {
    return {};
  }
}

function installText(s: Awaited<ReturnType<typeof bridgeInstallState>>): string {
  switch (s.kind) {
    case 'absent':
      return `not installed (arbor pi-bridge install puts it in ${s.file})`;
    case 'current':
      return `installed, ${s.version} (${s.file})`;
    case 'different':
      return s.sameVersion
        ? `installed, another build of ${s.version} (arbor pi-bridge install replaces it with this Arbor's) (${s.file})`
        : `installed, another version (${s.version}; arbor pi-bridge install replaces it) (${s.file})`;
    case 'changed':
      return (
        `CHANGED: ${s.file} says it is Arbor's bridge ${s.version}, but ${s.reason}. ` +
        'Pi runs it as code: look at it, then `arbor pi-bridge install` replaces it'
      );
    case 'foreign':
      return `${s.file} exists but is not Arbor's bridge`;
  }
}
