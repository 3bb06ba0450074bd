import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './fixtures';

/** The built `arbor` binary (dist/cli.js, from `npm run build`). */
export const cli = path.join(repoRoot, 'dist', 'cli.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a child process (no Pi agent folder of the user's). */
export function arbor(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-no-pi-dir'), ...env }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}
