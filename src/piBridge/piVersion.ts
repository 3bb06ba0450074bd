import { readFileSync } from 'node:fs';
import * as path from 'node:path';

declare const ARBOR_BRIDGE_VERSION: string | undefined;

/** Arbor's version, written into the bundle at build time (esbuild define). */
export const BRIDGE_VERSION: string = typeof ARBOR_BRIDGE_VERSION === 'string' ? ARBOR_BRIDGE_VERSION : '0.0.0-dev';

/** The version of the Pi running this bridge: the package.json of the Pi package its entry script lives in. */
export function runningPiVersion(entryScript: string | undefined = process.argv[1]): string {
  if (!entryScript) return 'unknown';
  let dir = path.dirname(entryScript);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      const fields: object = typeof pkg === 'object' && pkg !== null ? pkg : {};
      const name = 'name' in fields ? fields.name : undefined;
      const version = 'version' in fields ? fields.version : undefined;
      if (typeof name === 'string' && name.endsWith('pi-coding-agent') && typeof version === 'string') return version;
    } catch {
      // not here: go up
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return 'unknown';
}

/** The Pi versions whose extension hooks and commands the bridge is written for (Pi 1.6's API). */
export const SUPPORTED_PI_RANGE = '>=1.6.0 <2.0.0';

/**
 * Whether the bridge can serve this Pi: 1.6 or a later 1.x. Pi 0.73 and older differ in the hooks the bridge
 * answers (no compaction `reason`) and run an extension's command as a model prompt. An unknown version is served.
 */
export function bridgeServesPi(version: string): boolean {
  const m = /^(\d+)\.(\d+)\./.exec(version);
  if (!m) return version === 'unknown';
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major === 1 && minor >= 6;
}
