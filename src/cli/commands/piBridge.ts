import * as path from 'node:path';
import { parseWith, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, shortField, type Io } from '../output';
import { piAgentDir } from '../../engine/session/piAgentDir';
import { bridgeInstallState, installBridge, uninstallBridge } from '../../engine/livePi/install';
import { findLivePi, liveBridges } from '../../engine/livePi/findLivePi';
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
      io.out(
        'Pi loads it when it starts: restart a running Pi (quit, then `pi --continue` or `pi --session FILE`) to let Arbor work through it.',
      );
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
    if (file) {
      // The file need not be readable (Pi writes it with its first answer): the bridge's announcement names it; its
      // cwd, when readable, is where a Pi without the bridge would run.
      const cwd = await sessionCwd(file);
      const live = await findLivePi(path.resolve(file), { agentDir, cwd });
      if (p.flags.json) {
        await printJson(io, {
          installed,
          live: live.kind === 'bridge' ? live.state : null,
          piWithoutBridge: live.kind === 'unbridged' ? live.processes.map((x) => ({ pid: x.pid, cwd: x.cwd })) : [],
          unanswered: live.kind === 'unanswered' ? { pid: live.entry.pid, error: live.error } : null,
        });
        return 0;
      }
      io.out(`bridge: ${installText(installed)}`);
      if (live.kind === 'bridge') io.out(`live Pi holds ${file}: ${describeState(live.state)}`);
      else if (live.kind === 'unanswered')
        io.out(`Pi (pid ${live.entry.pid}) holds ${file} with the bridge but did not answer: ${shortField(live.error, 200)}`);
      else if (live.kind === 'unbridged')
        io.out(
          `Pi without the bridge runs in ${shortField(live.processes[0].cwd, 200)} (pid ` +
            `${live.processes.map((x) => x.pid).join(', ')}): Arbor will not write to ${file} while it runs (install the bridge and restart Pi, or quit Pi)`,
        );
      else io.out(`no running Pi holds ${file}: Arbor writes to the file`);
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

async function sessionCwd(file: string): Promise<string | undefined> {
  try {
    const header = await readSessionHeader(file);
    return typeof header?.cwd === 'string' && header.cwd ? header.cwd : undefined;
  } catch {
    return undefined;
  }
}

function installText(s: Awaited<ReturnType<typeof bridgeInstallState>>): string {
  switch (s.kind) {
    case 'absent':
      return `not installed (arbor pi-bridge install puts it in ${s.file})`;
    case 'current':
      return `installed, ${s.version} (${s.file})`;
    case 'different':
      return `installed, another version (${s.version}; arbor pi-bridge install replaces it) (${s.file})`;
    case 'foreign':
      return `${s.file} exists but is not Arbor's bridge`;
  }
}
