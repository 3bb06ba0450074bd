import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './fixtures';

/**
 * Runs the build's generator (scripts/o200kTable.mjs, an ES module) in a child process: `write` writes the
 * table to `out`, `bytes` makes it from the rank file `ranks`; says which rank file it reads and what it threw.
 */
export function o200kGenerator(run: 'write' | 'bytes', args: { out?: string; ranks?: string }): { ranksFile: string; error?: string } {
  const script = pathToFileURL(path.join(repoRoot, 'scripts', 'o200kTable.mjs')).href;
  const body =
    `const m = await import(${JSON.stringify(script)}); const [run, arg] = process.argv.slice(1); let error;` +
    `try { if (run === 'write') m.writeO200kTable(arg); else m.o200kTableBytes(arg); } catch (e) { error = e.message; }` +
    `console.log(JSON.stringify({ ranksFile: m.O200K_RANKS_FILE, error }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', body, run, args.out ?? args.ranks ?? ''], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { ranksFile: string; error?: string };
}
