import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './fixtures';

/** The built `arbor` binary (dist/cli.js, from `npm run build`). */
export const builtCli = path.join(repoRoot, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The process was killed after `killAfterMs` (it hung). */
  killed: boolean;
}

/**
 * Runs the built CLI as its own process. A run that has not ended after
 * `killAfterMs` is killed and reported as such (a hang is a failure the
 * test can name, not a mocha timeout).
 */
export function runBuiltCli(args: string[], options: { killAfterMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtCli, ...args], {
      env: { ...process.env, PI_CODING_AGENT_DIR: path.join(os.tmpdir(), 'arbor-no-pi-dir'), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, options.killAfterMs ?? 30000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    });
  });
}
