import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isProcessAlive, privateBridgeFolder, removeQuietly, writePrivateJson } from './registry';

/**
 * A Pi the bridge refused (a version it cannot serve, piVersion.ts) says so in the bridge's private folder:
 * `refused-<pid>.json` with its pid, version and host, so `pi-bridge status` can tell the user that installing
 * the bridge or /reload will not help. Such a Pi announces nothing else (no socket, no registry entry). The
 * record goes when that Pi exits, or when Arbor finds its process gone. Node built-ins only: the bridge bundles it.
 */

export interface RefusedPi {
  pid: number;
  piVersion: string;
  host: string;
}

const REFUSED = /^refused-(\d{1,10})\.json$/;

export function refusalName(pid: number): string {
  return `refused-${pid}`;
}

/** Written by the bridge when it refuses to serve this Pi; returns the file (removed by the caller on exit). */
export async function writeRefusal(agentDir: string, refused: RefusedPi): Promise<string> {
  return writePrivateJson(agentDir, refusalName(refused.pid), refused);
}

/**
 * The refused Pis of an agent folder still running on this host, by pid. Records of gone processes are removed;
 * files that are not this user's regular files, or do not parse, or lie in a folder others can reach, are passed over.
 */
export async function refusedPis(agentDir: string): Promise<Map<number, RefusedPi>> {
  const out = new Map<number, RefusedPi>();
  const { dir, names } = await privateBridgeFolder(agentDir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const name of names) {
    const m = REFUSED.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    try {
      const st = await fsp.lstat(file);
      if (!st.isFile() || st.size > 4096 || (uid !== undefined && st.uid !== uid)) continue;
      const v: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
      const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
      if (o.pid !== Number(m[1]) || typeof o.piVersion !== 'string' || typeof o.host !== 'string') continue;
      if (o.host !== os.hostname()) continue; // another machine's, on a shared home: not ours to judge
      if (!isProcessAlive(o.pid)) {
        await removeQuietly(file);
        continue;
      }
      out.set(o.pid, { pid: o.pid, piVersion: o.piVersion.slice(0, 64), host: o.host });
    } catch {
      // gone meanwhile, or not JSON: passed over
    }
  }
  return out;
}
