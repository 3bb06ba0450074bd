import * as os from 'node:os';
import * as path from 'node:path';

/** Pi's agent folder (its sessions, settings and models): PI_CODING_AGENT_DIR, else ~/.pi/agent. */
export function piAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PI_CODING_AGENT_DIR || path.join(os.homedir(), '.pi', 'agent');
}
