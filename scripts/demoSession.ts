/**
 * The demo's session that works in the demo workspace itself: a copy of one
 * of the sample workspace's sessions whose working directory is the
 * workspace (paths rewritten), with every file it changed put on disk as the
 * session last left it. On it Compact, Jump, Show File Changes and Restore
 * Files (and undo) all do something real: the copy leaves out the compaction
 * the sample ends in (issue 34: a session that already ends in a compaction
 * has nothing to compact), so Compact summarizes its audit.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadSession } from '../src/engine/session/loadSession';
import { sessionFiles } from '../src/engine/files/sessionFiles';

/** The sample session used: it edits docs/guide-2.md and writes docs/AUDIT.md. */
export const DEMO_SOURCE_SESSION = '2026-11-29T19-22-32-469Z_01a228c2-4e95-75a4-b7ad-da14e3c26c1d.jsonl';

export interface DemoSession {
  file: string;
  /** Files written into the workspace (relative paths), as the session left them. */
  files: string[];
}

export async function writeDemoSession(workspace: string, sessionsDir = path.join(workspace, '.pi', 'sessions')): Promise<DemoSession> {
  const text = fs.readFileSync(path.join(sessionsDir, DEMO_SOURCE_SESSION), 'utf8');
  const lines = withoutTrailingCompactions(text.split('\n'));
  const header = JSON.parse(lines[0]) as { cwd: string; id: string; timestamp: string };
  const oldCwd = header.cwd;
  // The workspace in place of the old cwd, in every path the session names (as JSON string text).
  const inJson = (s: string) => JSON.stringify(s).slice(1, -1);
  const body = lines.slice(1).join('\n').split(inJson(oldCwd)).join(inJson(workspace));
  const id = randomUUID();
  const stamp = new Date().toISOString();
  const newHeader = { ...header, id, timestamp: stamp, cwd: workspace };
  const file = path.join(sessionsDir, `${stamp.replace(/[:.]/g, '-')}_${id}.jsonl`);
  fs.writeFileSync(file, `${JSON.stringify(newHeader)}\n${body}`);
  // What the session last left in each file it changed goes on disk, so restoring has something true to check.
  const index = await loadSession(file);
  const written: string[] = [];
  for (const f of sessionFiles(index).chronological.files.values()) {
    if (f.changes.length === 0 || !f.insideCwd) continue;
    const last = f.final;
    if (last.state !== 'known' && last.state !== 'assumed') continue;
    fs.mkdirSync(path.dirname(f.absPath), { recursive: true });
    fs.writeFileSync(f.absPath, last.text);
    written.push(f.path);
  }
  return { file, files: written.sort() };
}

/** The lines without the compaction entries the session ends in (and the empty lines after them). */
function withoutTrailingCompactions(lines: string[]): string[] {
  let end = lines.length;
  for (;;) {
    while (end > 1 && !lines[end - 1].trim()) end--;
    if (end <= 1 || !isCompactionLine(lines[end - 1])) break;
    end--;
  }
  return [...lines.slice(0, end), ''];
}

function isCompactionLine(line: string): boolean {
  try {
    return (JSON.parse(line) as { type?: unknown }).type === 'compaction';
  } catch {
    return false;
  }
}
