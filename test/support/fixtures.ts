import * as path from 'node:path';
import * as fs from 'node:fs';

/** The repository root, from out/test/support or test/support. */
export const repoRoot = path.resolve(__dirname, '..', '..', fs.existsSync(path.join(__dirname, '..', '..', 'package.json')) ? '' : '..');

export const oracleDir = path.join(repoRoot, 'test', 'fixtures', 'pi-oracle');

export interface OracleCase {
  name: string;
  sessionFile: string;
  goldenFile: string;
}

/** Every session written by Pi with Pi 1.6.0's results on it (the reference). */
export function oracleCases(): OracleCase[] {
  const pairs: [string, string][] = [
    ['fixtures', 'golden16'],
    ['fixtures-pi16', 'golden16-pi16'],
  ];
  const out: OracleCase[] = [];
  for (const [fixtures, golden] of pairs) {
    for (const f of fs
      .readdirSync(path.join(oracleDir, fixtures))
      .filter((n) => n.endsWith('.jsonl'))
      .sort()) {
      const name = f.replace(/\.jsonl$/, '');
      out.push({ name, sessionFile: path.join(oracleDir, fixtures, f), goldenFile: path.join(oracleDir, golden, `${name}.json`) });
    }
  }
  return out;
}

export function fixturePath(...parts: string[]): string {
  return path.join(repoRoot, 'test', 'fixtures', ...parts);
}

/** Every .jsonl file under `dir` (default: all of test/fixtures), depth first in directory order. */
export function jsonlFixtures(dir: string = fixturePath(), out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) jsonlFixtures(p, out);
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}
