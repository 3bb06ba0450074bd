import { SessionFormatError, type Diagnostic } from '../diagnostics';
import { isRecord } from '../jsonObject';
import { MAX_PARSED_ENTRY_BYTES, oversizedLineMessage } from '../entryLimits';
import { entryTypeOf } from '../entryKinds';
import { oddValueProblem } from '../entryShape';
import { entryMayHoldFileOps } from '../fileOpHints';
import { openRegularFile } from '../sessionFile';
import type { FileHandle } from 'node:fs/promises';
import { SessionIndex } from '../sessionIndex';
import type { EntryRecord } from '../entryRecord';
import { agentName, agentOfHead, type AgentKind } from './agentKind';
import { PARENT_ID_PREFIX, withForkHistory } from './codexForkHistory';
import { claudeForkOrigin } from './claudeForkOrigin';
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

/** Bytes read from the file at a time (the file is streamed: memory is its parsed entries, not its bytes). */
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Loads another agent's session, streamed: the file is read in chunks and
 * every line is parsed (a line that is not JSON, not an object, too long to
 * parse, nested deeper than a Pi entry may be or holding a `toString` key is
 * reported with its line number and skipped), the agent's converter maps the
 * records to Pi-shaped entries, and the index is marked with the agent
 * (read-only). Entries are all kept parsed: none is read back from the file
 * by offset (their records' byte ranges are empty). A Codex rollout forked
 * from another (`forked_from_id`) is linked to its origin's file
 * (`header.parentSession`, as Pi links a fork) when that file is in the same
 * sessions folder; a Claude Code `--fork-session` file to the transcript of
 * the same project folder it copied its first records from.
 */
export async function loadForeignSession(
  file: string,
  agent: Exclude<AgentKind, 'pi'>,
  options: { signal?: AbortSignal } = {},
): Promise<SessionIndex> {
  const diagnostics: Diagnostic[] = [];
  const fh = await openRegularFile(file);
  let converted: ForeignSession;
  const lines = sourceLines(file, fh, diagnostics, options.signal);
  let parentFile: string | undefined;
  try {
    if (agent === 'claude-code') converted = await convertClaudeCode(file, lines.iterate());
    else {
      const withParent = withForkHistory({
        file,
        lines: lines.iterate(),
        readLines: (other) => otherLines({ file: other, diagnostics, signal: options.signal, depth: 1 }),
        onParent: (p) => (parentFile = p),
        signal: options.signal,
      });
      converted = await convertCodex(file, withParent);
    }
  } finally {
    await fh.close();
  }
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
  const index = new SessionIndex({
    file,
    header: converted.header,
    version: 3,
    records,
    diagnostics: [...diagnostics, ...converted.diagnostics].sort((a, b) => a.line - b.line),
    committedSize: lines.committed,
    lineCount: lines.count,
    size: lines.size,
    endsWithNewline: lines.size === 0 || lines.endsWithNewline,
    agent,
    leaf: converted.leaf,
  });
  if (parentFile !== undefined) {
    index.header.parentSession = parentFile;
    // The parent's history is not the fork's own (its title is its own first request).
    const copied = converted.entries.findIndex((e) => !e.entry.id.startsWith(PARENT_ID_PREFIX));
    index.header.copiedEntries = copied < 0 ? converted.entries.length : copied;
  }
  if (converted.fork) {
    // The entries copied from the origin are not the fork's own (its title is its own first request).
    index.header.copiedEntries = converted.fork.copiedEntries;
    const parent = await claudeForkOrigin({ file, copiedUuids: converted.fork.copiedUuids, signal: options.signal });
    if (parent !== undefined) index.header.parentSession = parent;
  }
  return index;
}

/** Forks of forks followed at most this deep (a cycle of rollouts naming each other ends here). */
const MAX_FORK_DEPTH = 8;

/**
 * Another file's lines (a fork's parent rollout, with its own parent's history when it is a fork), opened
 * when first asked for; its own problems name it.
 */
function otherLines(o: { file: string; diagnostics: Diagnostic[]; signal?: AbortSignal; depth: number }) {
  let fh: FileHandle | undefined;
  return {
    async *iterate(): AsyncGenerator<SourceLine> {
      fh = await openRegularFile(o.file);
      const own = sourceLines(o.file, fh, o.diagnostics, o.signal).iterate();
      if (o.depth >= MAX_FORK_DEPTH) return yield* own;
      yield* withForkHistory({
        file: o.file,
        lines: own,
        readLines: (other) => otherLines({ ...o, file: other, depth: o.depth + 1 }),
        onParent: () => undefined,
        signal: o.signal,
      });
    },
    close: async () => {
      await fh?.close();
    },
  };
}

/**
 * The file's lines, read a chunk at a time and parsed one at a time as the
 * converter asks for them (no array of every line is made, the file is never
 * held whole). A last line without a line break is read when it parses, else
 * reported as cut off; a line longer than an entry may be is passed over.
 */
function sourceLines(file: string, fh: FileHandle, diagnostics: Diagnostic[], signal?: AbortSignal) {
  const state = {
    count: 0,
    parsed: 0,
    size: 0,
    /** Bytes up to the end of the last complete line (a last line that parses counts as complete). */
    committed: 0,
    endsWithNewline: false,
    async *iterate(): AsyncGenerator<SourceLine> {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let carry: Buffer = Buffer.alloc(0);
      /** File offset of carry[0]. */
      let carryAt = 0;
      let position = 0;
      let line = 0;
      let skipping = false;
      let lastByte = -1;
      const parse = (bytes: Buffer, offset: number, complete: boolean): SourceLine | undefined => {
        line++;
        if ((line & 0x3fff) === 0) signal?.throwIfAborted();
        const start = line === 1 && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
        const text = bytes.toString('utf8', start).trim();
        if (!text) return undefined;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          const message = !complete
            ? 'the last line is incomplete (a writer stopped mid-line); skipped'
            : `invalid JSON (${jsonProblem(err)}); line skipped`;
          diagnostics.push({ file, line, message });
          return undefined;
        }
        if (!isRecord(value)) {
          diagnostics.push({ file, line, message: 'the line is not a JSON object; skipped' });
          return undefined;
        }
        // The same bound as Pi entries: nothing after this walks a record deeper than MAX_ENTRY_DEPTH.
        const odd = oddValueProblem(value);
        if (odd !== undefined) {
          diagnostics.push({ file, line, message: `${odd}; line skipped` });
          return undefined;
        }
        state.parsed++;
        return { line, offset, value };
      };
      for (;;) {
        signal?.throwIfAborted();
        const { bytesRead } = await fh.read(buf, 0, buf.length, position);
        if (bytesRead === 0) break;
        lastByte = buf[bytesRead - 1];
        let begin = 0;
        for (let nl = buf.indexOf(10, begin); nl >= 0 && nl < bytesRead; nl = buf.indexOf(10, begin)) {
          if (skipping) {
            skipping = false;
            line++;
            diagnostics.push({ file, line, message: `${oversizedLineMessage(position + nl - carryAt)}; line skipped` });
          } else {
            const bytes = carry.length ? Buffer.concat([carry, buf.subarray(begin, nl)]) : buf.subarray(begin, nl);
            const from = carry.length ? carryAt : position + begin;
            carry = Buffer.alloc(0);
            if (bytes.length > MAX_PARSED_ENTRY_BYTES) {
              line++;
              diagnostics.push({ file, line, message: `${oversizedLineMessage(bytes.length)}; line skipped` });
            } else {
              const src = parse(bytes, from, true);
              if (src) yield src;
            }
          }
          state.count = line;
          state.committed = position + nl + 1;
          begin = nl + 1;
        }
        // The rest of the chunk starts a line that goes on in the next one (a copy: the buffer is read into again).
        if (begin < bytesRead) {
          if (!skipping) {
            if (!carry.length) carryAt = position + begin;
            if (carry.length + bytesRead - begin > MAX_PARSED_ENTRY_BYTES) {
              carry = Buffer.alloc(0);
              skipping = true;
            } else carry = Buffer.concat([carry, buf.subarray(begin, bytesRead)]);
          }
        }
        position += bytesRead;
      }
      state.size = position;
      state.endsWithNewline = lastByte === 10;
      if (skipping) {
        line++;
        diagnostics.push({ file, line, message: `${oversizedLineMessage(position - carryAt)}; line skipped` });
      } else if (carry.length) {
        const src = parse(carry, carryAt, false);
        if (src) {
          state.committed = position;
          yield src;
        }
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
