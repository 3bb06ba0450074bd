import { promises as fsp } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { bridgeFolder, isProcessAlive } from './registry';

/**
 * Socket files left in the bridge folder by a Pi that ended without cleaning
 * up (killed, crashed) and that no registry entry names any more. Only
 * sockets of this user's, in the bridge's own folder, that nothing listens
 * on (their process is gone, or connecting is refused) are removed. Node
 * built-ins only: the bridge bundles this file.
 */

const SOCKET_NAME = /^(\d+)-[0-9a-f]+\.sock$/;

/** Whether something listens on a Unix socket (false on ECONNREFUSED/ENOENT: nobody will). */
function listening(endpoint: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection(endpoint);
    const done = (v: boolean) => {
      socket.destroy();
      resolve(v);
    };
    socket.once('connect', () => done(true));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code !== 'ECONNREFUSED' && err.code !== 'ENOENT'));
  });
}

/** Removes dead socket files from an agent folder's bridge folder; returns the ones removed. */
export async function removeDeadSockets(agentDir: string): Promise<string[]> {
  if (process.platform === 'win32') return [];
  const dir = bridgeFolder(agentDir);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = SOCKET_NAME.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    try {
      const st = await fsp.lstat(file);
      if (!st.isSocket() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) continue;
      const announced = names.includes(name.replace(/\.sock$/, '.json'));
      if (announced && isProcessAlive(Number(m[1]))) continue;
      if (await listening(file)) continue;
      await fsp.unlink(file);
      removed.push(file);
    } catch {
      // gone meanwhile, or not ours to look at
    }
  }
  return removed;
}
