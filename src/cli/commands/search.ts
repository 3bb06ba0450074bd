import { stringFlag } from '../args';
import { parseWith, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, shortField, type Io } from '../output';
import { allSessionDirs, listedSessions } from '../sessionList';
import { interruptSignal } from '../summarizerArgs';
import { shownPath } from './files';
import { sessionsDirFor } from '../../engine/session/discovery';
import { otherAgentSessions } from '../../engine/session/agents/discovery';
import { skippedWarning } from '../skippedWarning';
import { peekSession, peekTitle } from '../../engine/tree/sessionPeek';
import { searchSession, type SearchHit } from '../../engine/search/searchSession';
import { shownTitle } from '../../engine/tree/sessionTitle';

/** Hits reported at most (over every session searched), as in the extension. */
const MAX_HITS = 1000;

export const searchSpec: CommandSpec = {
  name: 'search',
  summary: "finds text in a session, a working directory's sessions or all of Pi's sessions (the extension's search)",
  positionals: [
    { name: 'FILE', description: 'a Pi session file (.jsonl), unless --cwd or --all is given' },
    { name: 'QUERY', description: 'text to find, case-insensitive (no pattern)' },
  ],
  synopsis: '(FILE | --cwd DIR | --all) QUERY',
  options: {
    cwd: { type: 'string', value: 'DIR', description: 'search the sessions of this working directory' },
    all: { type: 'boolean', description: "search every session in Pi's sessions folder" },
    ...JSON_OPTION,
  },
  examples: ['arbor search session.jsonl "npm test"', 'arbor search --cwd . "ENOENT" --json', 'arbor search --all "rate limit"'],
};

interface Target {
  file: string;
  title: string;
}

async function targetsOf(argv: string[], io: Io): Promise<{ targets: Target[]; query: string; json: boolean }> {
  const p = parseWith(searchSpec, argv);
  const cwd = stringFlag(p.flags, 'cwd');
  const all = p.flags.all === true;
  if (cwd !== undefined && all) throw usageError(searchSpec, '--cwd and --all go alone');
  const wanted = cwd !== undefined || all ? 1 : 2;
  if (p.positionals.length !== wanted)
    throw usageError(
      searchSpec,
      wanted === 1 ? 'give the QUERY only, with --cwd or --all' : 'give FILE and QUERY (or --cwd DIR / --all and QUERY)',
    );
  const query = p.positionals[wanted - 1];
  if (!query.trim()) throw usageError(searchSpec, 'QUERY is empty');
  const json = p.flags.json === true;
  if (wanted === 2) {
    const file = p.positionals[0];
    return {
      targets: [{ file, title: shownTitle(await peekSession(file).then(peekTitle, () => undefined), file) }],
      query,
      json,
    };
  }
  const dirs = all ? await allSessionDirs() : [sessionsDirFor(cwd!)];
  const listed = await listedSessions(dirs, await otherAgentSessions(all ? undefined : cwd!, process.env, skippedWarning(io)));
  return { targets: listed.map((s) => ({ file: s.file, title: s.titleLine })), query, json };
}

/**
 * `arbor search`: the extension's search engine (engine/search/searchSession.ts)
 * over one session or many, with the same hits (session, entry id, kind,
 * snippet). Each file is read once, in chunks; a line is parsed only when
 * its bytes hold the query.
 */
export async function searchCommand(argv: string[], io: Io): Promise<number> {
  const { targets, query, json } = await targetsOf(argv, io);
  const signal = interruptSignal();
  const hits: (SearchHit & { title: string })[] = [];
  const skipped: { file: string; lines: number[] }[] = [];
  let scannedBytes = 0;
  let complete = true;
  for (const t of targets) {
    if (hits.length >= MAX_HITS) {
      complete = false;
      break;
    }
    let r: Awaited<ReturnType<typeof searchSession>>;
    try {
      r = await searchSession(t.file, {
        query,
        signal,
        maxHits: MAX_HITS - hits.length,
        onHit: (hit) => hits.push({ ...hit, title: t.title }),
      });
    } catch (err) {
      // One session that cannot be read (gone, a FIFO, no permission, not a session) does not end a search of many.
      if (targets.length === 1 || signal.aborted) throw err;
      io.err(`arbor: warning: ${shownPath(t.file)}: ${err instanceof Error ? err.message : String(err)}; skipped`);
      continue;
    }
    scannedBytes += r.scannedBytes;
    complete &&= r.complete;
    if (r.skippedLines.length) skipped.push({ file: t.file, lines: r.skippedLines });
  }
  const matched = new Set(hits.map((h) => h.file)).size;
  if (json) {
    await printJson(io, { query, sessions: targets.length, matchedSessions: matched, scannedBytes, complete, hits, skippedLines: skipped });
    return 0;
  }
  // Hits grouped by session (the targets are searched one after the other), each group headed by the session's whole title.
  const perSession = new Map<string, number>();
  for (const h of hits) perSession.set(h.file, (perSession.get(h.file) ?? 0) + 1);
  let last: string | undefined;
  for (const h of hits) {
    if (targets.length > 1 && h.file !== last) {
      const n = perSession.get(h.file) ?? 0;
      io.out(`${last === undefined ? '' : '\n'}${shortField(h.title, 400)}: ${n} match${n === 1 ? '' : 'es'}`);
      io.out(`  ${shownPath(h.file)}`);
    }
    last = h.file;
    io.out(`  ${shortField(h.entryId)}  ${h.field.padEnd(12)} ${shortField(h.snippet, 160)}`);
  }
  for (const s of skipped)
    io.err(
      `arbor: ${shownPath(s.file)}: ${s.lines.length} line${s.lines.length === 1 ? '' : 's'} too long to search (line ` +
        `${s.lines.slice(0, 5).join(', ')}${s.lines.length > 5 ? ', …' : ''})`,
    );
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  io.out(
    `${hits.length}${complete ? '' : '+'} match${hits.length === 1 ? '' : 'es'} in ${plural(matched, 'session')}` +
      (targets.length > 1 ? ` (${plural(targets.length, 'session')} searched)` : ''),
  );
  return 0;
}
