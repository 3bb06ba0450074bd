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
import { rmdirSync, rmSync, unlinkSync } from 'node:fs';
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
import { removeDeadSockets } from '../engine/livePi/deadSockets';
import { writeRefusal } from '../engine/livePi/refusedPis';
import { BRIDGE_VERSION, SUPPORTED_PI_RANGE, bridgeServesPi, runningPiVersion } from './piVersion';
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
  /** The endpoint's folder when it is this bridge's alone (removed on exit). */
  ownFolder: string | null;
  operations: BridgeOperations;
}

export default function arborBridge(pi: PiApi): void {
  const piVersion = runningPiVersion();
  if (!bridgeServesPi(piVersion)) {
    // Refused up front: no hook answered, no command registered, nothing announced but the refusal itself
    // (refusedPis.ts: `pi-bridge status` then names this Pi's version instead of advising an install or /reload).
    void writeRefusal(agentDir(), { pid: process.pid, piVersion, host: os.hostname() })
      .then((file) => process.once('exit', () => rmSync(file, { force: true })))
      .catch(() => undefined);
    pi.on('session_start', (_event, c) => {
      if (c.hasUI)
        c.ui.notify(
          `Arbor's bridge does not work with Pi ${piVersion} (it needs Pi ${SUPPORTED_PI_RANGE}); ` +
            'Arbor will not write to this session while Pi runs',
          'warning',
        );
    });
    return;
  }
  let live: Live | undefined;
  let ctx: PiContext | undefined;
  let starting: Promise<void> | undefined;
  const identity = { pid: process.pid, piVersion, bridgeVersion: BRIDGE_VERSION };
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
    try {
      if (live.ownFolder) rmdirSync(live.ownFolder);
    } catch {
      // already gone
    }
  };

  async function start(c: PiContext): Promise<void> {
    await stop();
    ctx = c;
    const sessionFile = c.sessionManager.getSessionFile();
    if (!sessionFile) return; // --no-session: nothing on disk for Arbor to find
    const dir = agentDir();
    await listRegistry(dir); // cleans entries of dead processes
    await removeDeadSockets(dir); // and sockets no entry names that nothing listens on
    const name = `${process.pid}-${randomBytes(6).toString('hex')}`;
    const token = randomBytes(32).toString('hex');
    const { endpoint, folder, own } = endpointPath(dir, name);
    const server = new BridgeServer({ endpoint, folder, ownFolder: own, token, handle: (r, signal) => dispatch(r, signal) });
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
    live = { server, registryFile, endpoint, ownFolder: own ? folder : null, operations };
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
        return operations.compact(request, signal);
      case 'navigate':
        return operations.navigate(request, signal);
      case 'label':
        return operations.label(request, signal);
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
