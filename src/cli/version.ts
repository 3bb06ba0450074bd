import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** Set by the build (esbuild.mjs `define`) from package.json; absent when run from tsc's output. */
declare const ARBOR_VERSION: string | undefined;

/** Arbor's version: bundled at build time; unbundled (out/, tests), read from package.json. */
export function arborVersion(): string {
  if (typeof ARBOR_VERSION === 'string') return ARBOR_VERSION;
  try {
    const pkg: unknown = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
    const v = pkg && typeof pkg === 'object' && 'version' in pkg ? pkg.version : undefined;
    return typeof v === 'string' ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}
