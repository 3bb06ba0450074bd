/**
 * A restore run as its own process that SIGKILLs itself at a named point of
 * a named file (restoreTransaction.ts's `at` hook): the crash a test then
 * undoes. Argument: a JSON file holding { steps, root, session, agentDir,
 * kill: { point, path } }. Exits 0 when the point never came.
 */
import { readFileSync } from 'node:fs';
import { runRestore } from '../../src/engine/files/restoreRun';
import type { RestorePoint, RestoreStep } from '../../src/engine/files/restoreTransaction';

export interface KillChildInput {
  steps: RestoreStep[];
  root: string;
  session: string;
  agentDir: string;
  kill: { point: RestorePoint; path: string };
}

async function main(): Promise<void> {
  const input = JSON.parse(readFileSync(process.argv[2], 'utf8')) as KillChildInput;
  await runRestore(input.steps, {
    root: input.root,
    session: input.session,
    env: { ...process.env, PI_CODING_AGENT_DIR: input.agentDir },
    hooks: {
      at: (point, p) => {
        if (point === input.kill.point && p === input.kill.path) process.kill(process.pid, 'SIGKILL');
      },
    },
  });
}

if (require.main === module)
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(3);
  });
