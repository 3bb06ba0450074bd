/**
 * Arbor's bridge: a Pi extension (installed by `arbor pi-bridge install` into
 * Pi's extensions folder) through which Arbor compacts, navigates and labels a
 * session that a running Pi holds. Pi itself writes each entry and moves its
 * own leaf, so nothing Arbor does is lost from Pi's memory.
 *
 * On session start it listens on a private local endpoint and announces it
 * in `<agent folder>/arbor-bridge/` (see engine/livePi/registry.ts); on
 * session switch or shutdown it withdraws both. Node built-ins only.
 */
import { randomBytes } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BridgeRequestError, type BridgeRequest } from '../engine/livePi/protocol';
import {
  REGISTRY_FORMAT,
  endpointPath,
  listRegistry,
  removeQuietly,
  writeRegistryEntry,
  type RegistryEntry,
} from '../engine/livePi/registry';
import { BRIDGE_COMMAND, BridgeOperations } from './operations';
import { BridgeServer } from './server';
import { BRIDGE_VERSION, runningPiVersion } from './piVersion';
import type { PiApi, PiContext } from './piApi';

/** Pi's agent folder, as Pi resolves it (PI_CODING_AGENT_DIR with ~ expanded, else ~/.pi/agent). */
function agentDir(): string {
  const env = process.env.PI_CODING_AGENT_DIR;
  if (env) return env === '~' ? os.homedir() : env.startsWith('~/') ? path.join(os.homedir(), env.slice(2)) : env;
  return path.join(os.homedir(), '.pi', 'agent');
}

interface Live {
  server: BridgeServer;
  registryFile: string;
  endpoint: string;
  operations: BridgeOperations;
}

export default function arborBridge(pi: PiApi): void {
  let live: Live | undefined;
  let ctx: PiContext | undefined;
  let starting: Promise<void> | undefined;
  const identity = { pid: process.pid, piVersion: runningPiVersion(), bridgeVersion: BRIDGE_VERSION };
  const operations = new BridgeOperations(
    pi,
    () => {
      if (!ctx) throw new BridgeRequestError('failed', 'Pi has no session open');
      return ctx;
    },
    identity,
  );

  const exitCleanup = () => {
    if (!live) return;
    for (const f of [live.registryFile, live.endpoint]) {
      try {
        unlinkSync(f);
      } catch {
        // already gone
      }
    }
  };

  async function start(c: PiContext): Promise<void> {
    await stop();
    ctx = c;
    const sessionFile = c.sessionManager.getSessionFile();
    if (!sessionFile) return; // --no-session: nothing on disk for Arbor to find
    const dir = agentDir();
    await listRegistry(dir); // cleans entries of dead processes
    const name = `${process.pid}-${randomBytes(6).toString('hex')}`;
    const token = randomBytes(32).toString('hex');
    const { endpoint, folder } = endpointPath(dir, name);
    const server = new BridgeServer(endpoint, folder, token, (r, signal) => dispatch(r, signal));
    await server.listen();
    const entry: RegistryEntry = {
      format: REGISTRY_FORMAT,
      ...identity,
      sessionFile: path.resolve(sessionFile),
      sessionId: c.sessionManager.getSessionId(),
      cwd: c.sessionManager.getCwd(),
      endpoint,
      token,
      startedAt: new Date().toISOString(),
      host: os.hostname(),
    };
    let registryFile: string;
    try {
      registryFile = await writeRegistryEntry(dir, name, entry);
    } catch (err) {
      await server.close(); // no announcement: no endpoint left behind either
      throw err;
    }
    live = { server, registryFile, endpoint, operations };
    process.once('exit', exitCleanup);
  }

  async function stop(): Promise<void> {
    const l = live;
    live = undefined;
    if (!l) return;
    process.off('exit', exitCleanup);
    operations.close();
    await removeQuietly(l.registryFile);
    await l.server.close();
  }

  async function dispatch(request: BridgeRequest, signal: AbortSignal) {
    switch (request.op) {
      case 'state':
        return operations.state();
      case 'compact':
        return operations.compact(request);
      case 'navigate':
        return operations.navigate(request);
      case 'label':
        return operations.label(request);
      case 'summarize':
        return operations.summarize(request, signal);
    }
  }

  pi.on('session_start', (_event, c) => {
    starting = start(c).catch((err) => {
      if (c.hasUI) c.ui.notify(`Arbor bridge could not start: ${err instanceof Error ? err.message : String(err)}`, 'warning');
    });
    return starting;
  });
  pi.on('session_shutdown', async () => {
    await starting;
    await stop();
    ctx = undefined;
  });
  pi.on('session_before_compact', (event, c) => operations.supplyCompaction(event, c));
  pi.on('session_before_tree', (event) => operations.supplyBranchSummary(event));
  pi.on('agent_settled', () => operations.wakeIdle());
  pi.registerCommand(BRIDGE_COMMAND, {
    description: "Used by Arbor's bridge to navigate the session tree (not for typing)",
    handler: (args, c) => operations.runCommand(args, c),
  });
}
