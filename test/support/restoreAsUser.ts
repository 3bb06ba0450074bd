/**
 * Restores `theirs.txt` (old → new) as an unprivileged user (uid = gid = the
 * fourth argument), for the test that a user who may not give a file away is
 * told its owner was not kept. Arguments: root, agent folder, session, id.
 * Prints the result's notes as JSON.
 */
import { createHash } from 'node:crypto';
import { runRestore } from '../../src/engine/files/restoreRun';

async function main(): Promise<void> {
  const [root, agentDir, session, id] = process.argv.slice(2);
  process.setgroups?.([Number(id)]);
  process.setgid?.(Number(id));
  process.setuid?.(Number(id));
  const r = await runRestore(
    [{ path: 'theirs.txt', action: 'write', text: 'new\n', onDisk: createHash('sha256').update('old\n').digest('hex') }],
    { root, session, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir } },
  );
  if (r.failure || r.written.length !== 1) throw new Error(JSON.stringify(r));
  process.stdout.write(JSON.stringify(r.notes));
}

if (require.main === module)
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(3);
  });
