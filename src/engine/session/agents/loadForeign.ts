import { SessionFormatError, type Diagnostic } from '../diagnostics';
import { isRecord } from '../jsonObject';
import { MAX_PARSED_ENTRY_BYTES, oversizedLineMessage } from '../entryLimits';
import { entryTypeOf } from '../entryKinds';
import { oddValueProblem } from '../entryShape';
import { entryMayHoldFileOps } from '../fileOpHints';
import { openRegularFile } from '../sessionFile';
import { SessionIndex } from '../sessionIndex';
import type { EntryRecord } from '../entryRecord';
import { agentName, agentOfHead, type AgentKind } from './agentKind';
import { codexRolloutById } from './discovery';
import { convertClaudeCode } from './claudeCode';
import { convertCodex } from './codex';
import type { ForeignSession, SourceLine } from './foreignEntries';

/** Bytes read to tell a file's agent (the first lines). */
export const SNIFF_BYTES = 256 * 1024;

/** The agent that wrote a session file, told from its first lines (undefined: none tells; the Pi reader gives its error). */
export async function sniffAgent(file: string): Promise<AgentKind | undefined> {
  const fh = await openRegularFile(file);
  try {
    const buf = Buffer.allocUnsafe(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return agentOfHead(buf.subarray(0, bytesRead), bytesRead < buf.length);
  } finally {
    await fh.close();
  }
}

/**
 * Loads another agent's session (read whole, see indexForeignBuffer); a Codex rollout forked from another
 * (`forked_from_id`) is linked to its origin's file (`header.parentSession`, as Pi links a fork) when that
 * file is in the same sessions folder.
 */
export async function loadForeignSession(
  file: string,
  buf: Buffer,
  agent: Exclude<AgentKind, 'pi'>,
  options: { signal?: AbortSignal } = {},
): Promise<SessionIndex> {
  const index = indexForeignBuffer(file, buf, agent, options);
  const origin = index.header.forkedFrom;
  if (agent === 'codex' && typeof origin === 'string') {
    const parent = await codexRolloutById(file, origin, options.signal);
    if (parent !== undefined) index.header.parentSession = parent;
  }
  return index;
}

/**
 * Indexes another agent's session read whole: every line is parsed (a line
 * that is not JSON, not an object, too long to parse, nested deeper than a
 * Pi entry may be or holding a `toString` key is reported with its line
 * number and skipped), the agent's converter maps the records to
 * Pi-shaped entries, and the index is marked with the agent (read-only).
 * Entries are all kept parsed: none is read back from the file by offset
 * (their records' byte ranges are empty).
 */
export function indexForeignBuffer(
  file: string,
  buf: Buffer,
  agent: Exclude<AgentKind, 'pi'>,
  options: { signal?: AbortSignal } = {},
): SessionIndex {
  const diagnostics: Diagnostic[] = [];
  const lines = sourceLines(file, buf, diagnostics, options.signal);
  const converted: ForeignSession =
    agent === 'claude-code' ? convertClaudeCode(file, lines.iterate()) : convertCodex(file, lines.iterate());
  if (!converted.entries.length && lines.parsed === 0)
    throw new SessionFormatError(file, 1, `not a ${agentName(agent)} session: no line of it could be read`);
  const records: EntryRecord[] = converted.entries.map(({ entry, line, offset }) => ({
    id: entry.id,
    parentId: entry.parentId,
    type: entryTypeOf(entry),
    role: entry.type === 'message' ? entry.message.role : undefined,
    line,
    chunk: null,
    start: offset,
    end: offset,
    mayHoldFileOps: entryMayHoldFileOps(entry),
    entry,
  }));
  const lastBreak = buf.lastIndexOf(10) + 1;
  const complete = lastBreak === buf.length || lines.lastComplete;
  return new SessionIndex({
    file,
    header: converted.header,
    version: 3,
    records,
    diagnostics: [...diagnostics, ...converted.diagnostics].sort((a, b) => a.line - b.line),
    committedSize: complete ? buf.length : lastBreak,
    lineCount: lines.count,
    size: buf.length,
    endsWithNewline: buf.length === 0 || buf[buf.length - 1] === 10,
    agent,
    leaf: converted.leaf,
  });
}

/**
 * The file's lines, parsed one at a time as the converter asks for them (no
 * array of every line is made). A last line without a line break is read
 * when it parses, else reported as cut off.
 */
function sourceLines(file: string, buf: Buffer, diagnostics: Diagnostic[], signal?: AbortSignal) {
  const state = {
    count: 0,
    parsed: 0,
    lastComplete: false,
    *iterate(): Generator<SourceLine> {
      let pos = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      let line = 0;
      while (pos < buf.length) {
        const nl = buf.indexOf(10, pos);
        const end = nl < 0 ? buf.length : nl;
        const start = pos;
        pos = end + 1;
        line++;
        state.count = nl < 0 ? line - 1 : line;
        if ((line & 0x3fff) === 0) signal?.throwIfAborted();
        if (end - start > MAX_PARSED_ENTRY_BYTES) {
          diagnostics.push({ file, line, message: `${oversizedLineMessage(end - start)}; line skipped` });
          continue;
        }
        const text = buf.toString('utf8', start, end).trim();
        if (!text) continue;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          const message =
            nl < 0
              ? 'the last line is incomplete (a writer stopped mid-line); skipped'
              : `invalid JSON (${jsonProblem(err)}); line skipped`;
          diagnostics.push({ file, line, message });
          continue;
        }
        if (!isRecord(value)) {
          diagnostics.push({ file, line, message: 'the line is not a JSON object; skipped' });
          continue;
        }
        // The same bound as Pi entries: nothing after this walks a record deeper than MAX_ENTRY_DEPTH.
        const odd = oddValueProblem(value);
        if (odd !== undefined) {
          diagnostics.push({ file, line, message: `${odd}; line skipped` });
          continue;
        }
        state.parsed++;
        if (nl < 0) state.lastComplete = true;
        yield { line, offset: start, value };
      }
    },
  };
  return state;
}

/** JSON.parse's complaint without the text it quotes (a line's bytes are never echoed). */
function jsonProblem(err: unknown): string {
  const at = /position (\d+)/.exec(String((err as Error)?.message));
  return at ? `at character ${at[1]}` : 'not valid JSON';
}
