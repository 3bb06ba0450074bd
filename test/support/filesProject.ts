import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../src/engine/session/loadSession';
import { sessionFiles } from '../../src/engine/files/sessionFiles';

/**
 * Re-creates, in a new temporary folder, the project a Pi session worked in
 * as it is after the session: every file the session changed holds the
 * content the session last produced (where the session has its text).
 * Returns the folder and the relative paths written.
 */
export async function projectAfterSession(sessionFile: string, dir?: string): Promise<{ dir: string; written: string[] }> {
  const root = dir ?? (await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-project-')));
  const index = await loadSession(sessionFile);
  const files = sessionFiles(index);
  const written: string[] = [];
  for (const f of files.chronological.files.values()) {
    if (!f.changes.length || !f.insideCwd) continue;
    const final = f.final;
    if (final.state !== 'known' && final.state !== 'assumed') continue;
    const abs = path.join(root, f.path);
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await fsp.writeFile(abs, final.text);
    written.push(f.path);
  }
  return { dir: root, written: written.sort() };
}

/**
 * A copy of a Pi session whose working directory is a new temporary project
 * holding the files as after the session (see projectAfterSession). The
 * copy's mtime is an hour old (not "being written right now").
 */
export async function sessionWithProject(sessionFile: string): Promise<{ session: string; project: string; written: string[] }> {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-files-'));
  const project = path.join(root, 'project');
  await fsp.mkdir(project);
  const { written } = await projectAfterSession(sessionFile, project);
  const text = await fsp.readFile(sessionFile, 'utf8');
  const nl = text.indexOf('\n');
  const header = { ...JSON.parse(text.slice(0, nl)), cwd: project };
  const session = path.join(root, path.basename(sessionFile));
  await fsp.writeFile(session, `${JSON.stringify(header)}${text.slice(nl)}`);
  const old = new Date(Date.now() - 3600_000);
  await fsp.utimes(session, old, old);
  return { session, project, written };
}
