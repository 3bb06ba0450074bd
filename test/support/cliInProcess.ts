import * as assert from 'node:assert/strict';
import { runCli } from '../../src/cli/main';

/** Runs `arbor` in process, collecting what it prints. */
export async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) });
  return { code, out, err };
}

/** Runs `arbor … --json`, which must succeed, and parses its output. */
export async function json(args: string[]): Promise<any> {
  const r = await run([...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

/** Points PI_CODING_AGENT_DIR (restore backups) at a new temporary folder per test; returns a getter for it. */
export function withTempAgentDir(mkdtemp: () => Promise<string>, cleanup: (dir: string) => void): () => string {
  let dir = '';
  const saved = process.env.PI_CODING_AGENT_DIR;
  beforeEach(async () => {
    dir = await mkdtemp();
    cleanup(dir);
    process.env.PI_CODING_AGENT_DIR = dir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
  });
  return () => dir;
}
