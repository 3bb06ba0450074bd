import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A temporary home for one describe block's agent sessions: CLAUDE_CONFIG_DIR is `<home>/claude`,
 * CODEX_HOME `<home>/codex`, PI_CODING_AGENT_DIR `<home>/pi` (PI_CODING_AGENT_SESSION_DIR unset), all
 * restored and the folder removed afterwards. Returns a getter for the folder.
 */
export function withAgentHomes(prefix: string): () => string {
  let home = '';
  const saved: Record<string, string | undefined> = {};
  before(async () => {
    home = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
    const wanted: Record<string, string | undefined> = {
      CLAUDE_CONFIG_DIR: path.join(home, 'claude'),
      CODEX_HOME: path.join(home, 'codex'),
      PI_CODING_AGENT_DIR: path.join(home, 'pi'),
      PI_CODING_AGENT_SESSION_DIR: undefined,
    };
    for (const [k, v] of Object.entries(wanted)) {
      saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  after(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await fsp.rm(home, { recursive: true, force: true });
  });
  return () => home;
}
