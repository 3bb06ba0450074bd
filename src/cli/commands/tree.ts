import { parseWith, ESTIMATOR_OPTION, FILE_POSITIONAL, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { openSession, estimatorFrom } from '../sessionArgs';
import { reportDiagnostics, shortField, writeLines, type Io, type LineSource } from '../output';
import type { EntryLease, SessionIndex } from '../../engine/session/sessionIndex';
import { RowFacts, type RowStyle } from './treeRowFacts';
import { ENTRY_KINDS } from '../../engine/tree/entryPreview';
import { shownPath } from './files';
import { subagentFiles } from '../../engine/session/agents/subagentLinks';

export const treeSpec: CommandSpec = {
  name: 'tree',
  summary: 'the tree: branch points, leaf, labels, entry kinds, tokens',
  positionals: [FILE_POSITIONAL],
  options: { ...ESTIMATOR_OPTION, ...JSON_OPTION },
  examples: ['arbor tree session.jsonl', 'arbor tree session.jsonl --json'],
};

/** Nesting levels drawn as guides; deeper rows show a depth marker instead (a 20,000-level session stays readable). */
export const MAX_DRAWN_DEPTH = 8;
/** Each kind as its column shows it (padded once, not on every row). */
const KIND_WIDTH = 13;
const KIND_COLUMN = new Map(ENTRY_KINDS.map((k) => [k, k.padEnd(KIND_WIDTH)]));
/** Rows written at a time (the entries of those the load did not describe are loaded together). */
const BATCH = 2048;

/** What the output is made of: lines, and promises to wait on before the lines after them (entries being loaded). */
type Output = LineSource;

/**
 * Every entry is described as the load parses it (RowFacts is the load's
 * visitor), on this thread: each line is parsed once (in a streamed session,
 * a plain message line without JSON.parse, its index record made from that
 * reading); what the load did not describe is described from the index.
 */
export async function treeCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(treeSpec, argv);
  const [file] = p.positionals;
  const style: RowStyle = { estimator: estimatorFrom(p.flags).name, json: Boolean(p.flags.json) };
  const rows = new RowFacts(style);
  const index = await openSession(file, { onEntry: rows.visit });
  reportDiagnostics(io, index);
  await writeLines(io, style.json ? treeJsonLines(index, rows) : drawTree(index, rows));
  return 0;
}

/** The lines of `"key": { ... }` or `"key": [ ... ]`, one member per line (a 1e6-entry session is never one string). */
function* memberLines(key: string, open: '{' | '[', members: Output, last = false): Generator<string | Promise<void>> {
  yield `  ${JSON.stringify(key)}: ${open}`;
  let first = true;
  for (const m of members) {
    if (typeof m !== 'string') {
      yield m;
      continue;
    }
    if (!first) yield ',';
    yield `    ${m}`;
    first = false;
  }
  yield `  ${open === '{' ? '}' : ']'}${last ? '' : ','}`;
}

function* mapped<T>(items: Iterable<T>, f: (item: T) => string): Generator<string> {
  for (const item of items) yield f(item);
}

/** Each batch of rows in order: a wait for the entries of those described from the index, then their lines. */
function* rowLines<T extends { i: number }>(
  index: SessionIndex,
  rows: RowFacts,
  items: Iterable<T>,
  line: (item: T) => string,
): Generator<string | Promise<void>> {
  let batch: T[] = [];
  const flush = function* () {
    // Rows the load did not describe (a line too long to parse, one that did not parse as indexed) come from the index: their entries are loaded first.
    const fromIndex = batch.filter((t) => !rows.hasRow(t.i)).map((t) => t.i);
    let lease: EntryLease | undefined;
    if (fromIndex.length) yield index.load(fromIndex, { keep: false }).then((l) => void (lease = l));
    try {
      for (const t of batch) {
        yield line(t);
        rows.forget(t.i);
      }
    } finally {
      lease?.release();
    }
    batch = [];
  };
  for (const t of items) {
    batch.push(t);
    if (batch.length >= BATCH) yield* flush();
  }
  yield* flush();
}

function* fileOrder(index: SessionIndex): Generator<{ i: number }> {
  for (let i = 0; i < index.entryCount; i++) yield { i };
}

/** `--json`: the same document as one JSON.stringify would give, made member by member. */
function* treeJsonLines(index: SessionIndex, rows: RowFacts): Generator<string | Promise<void>> {
  const id = (i: number) => index.record(i).id;
  yield '{';
  yield `  "leafId": ${JSON.stringify(index.leafId)},`;
  yield `  "entryCount": ${index.entryCount},`;
  yield* memberLines(
    'roots',
    '[',
    mapped(index.roots(), (r) => JSON.stringify(id(r))),
  );
  yield* memberLines(
    'branchPoints',
    '{',
    mapped(branchPoints(index), ([bp, kids]) => `${JSON.stringify(id(bp))}: ${JSON.stringify(kids.map(id))}`),
  );
  yield* memberLines(
    'labels',
    '{',
    mapped(index.labels(), ([target, label]) => `${JSON.stringify(target)}: ${JSON.stringify(label)}`),
  );
  const subagents = subagentFiles(index);
  const entries = rowLines(index, rows, fileOrder(index), ({ i }) => {
    const rec = index.record(i);
    const row = rows.row(index, i);
    const files = subagents.size ? subagents.get(rec.id) : undefined;
    return JSON.stringify({
      id: rec.id,
      parentId: rec.parentId,
      type: rec.type,
      kind: row.kind,
      line: rec.line,
      tokens: row.tokens,
      preview: row.text,
      ...(files ? { subagentFiles: files } : {}),
    });
  });
  yield* memberLines('entries', '[', entries, true);
  yield '}';
}

/** The branch points in file order with their children, one at a time (500,000 of them are never one map). */
function* branchPoints(index: SessionIndex): Generator<[number, readonly number[]]> {
  for (let i = 0; i < index.entryCount; i++) if (index.childCount(i) > 1) yield [i, index.children(i)];
}

/** Rows in tree order: each chain from `start`, nested under its branch point at `depth`. */
interface Frame {
  start: number;
  depth: number;
  /** The guides of the first MAX_DRAWN_DEPTH levels (bounded). */
  prefix: string;
  head: string;
}

/** The entries in the order the tree shows them, with the prefix of each row. */
function* treeRows(index: SessionIndex): Generator<{ i: number; prefix: string }> {
  const onLeafPath = new Uint8Array(index.entryCount);
  for (const i of index.pathTo(index.leafIndex)) onLeafPath[i] = 1;
  const roots = index.roots();
  const many = roots.length > 1;
  const stack: Frame[] = roots
    .reverse()
    .map((r, k) => ({ start: r, depth: many ? 1 : 0, prefix: many ? '   ' : '', head: many ? (k === 0 ? '└─ ' : '├─ ') : '' }));
  while (stack.length) {
    const { start, depth, prefix, head } = stack.pop()!;
    const deep = depth > MAX_DRAWN_DEPTH;
    const marker = deep ? `┆${depth} ` : '';
    let i = start;
    let first = true;
    for (;;) {
      yield { i, prefix: `${first ? prefix.slice(0, -3) + head : prefix}${marker}` };
      first = false;
      const count = index.childCount(i);
      if (count === 1) {
        i = index.childAt(i, 0);
        continue;
      }
      if (count === 0) break;
      // Children of a branch point: the one on the leaf's path last, so the active path reads on.
      const ordered = [...index.children(i)].sort((a, b) => onLeafPath[a] - onLeafPath[b]);
      for (let k = ordered.length - 1; k >= 0; k--) {
        const last = k === ordered.length - 1;
        const nested = depth + 1 > MAX_DRAWN_DEPTH;
        stack.push({
          start: ordered[k],
          depth: depth + 1,
          prefix: nested ? prefix : `${prefix}${last ? '   ' : '│  '}`,
          head: nested ? prefix.slice(-3) : last ? '└─ ' : '├─ ',
        });
      }
      break;
    }
  }
}

/**
 * A linear run of entries stays at one indent; only a branch point nests its
 * children, the way Pi's /tree shows a session. Past MAX_DRAWN_DEPTH nested
 * branch points the indent stops growing and rows show their depth (`┆12`).
 * Lines are made as they are written (a generator).
 */
function* drawTree(index: SessionIndex, rows: RowFacts): Generator<string | Promise<void>> {
  const h = index.header;
  yield (
    `session ${shortField(h.id)} (v${index.version}) cwd ${h.cwd}: ${index.entryCount} entries, leaf ` +
    `${index.leafId === null ? '-' : shortField(index.leafId)}`
  );
  // A fork names the session it was forked from (Pi's `parentSession`; a forked Codex rollout's origin).
  if (typeof h.parentSession === 'string') yield `forked from ${shownPath(h.parentSession)}`;
  const labels = index.labels();
  const leaf = index.leafIndex;
  // Claude Code's Agent/Task calls and their results name the subagent's transcript.
  const subagents = subagentFiles(index);
  yield* rowLines(index, rows, treeRows(index), ({ i, prefix }) => {
    const id = index.record(i).id;
    const row = rows.row(index, i);
    const label = labels.size ? labels.get(id) : undefined;
    let marks = row.tokens ? `${row.tokens} tok` : '';
    if (label) marks += `${marks ? ' ' : ''}[${shortField(label)}]`;
    if (i === leaf) marks += `${marks ? ' ' : ''}◀ leaf`;
    for (const f of (subagents.size && subagents.get(id)) || []) marks += `${marks ? ' ' : ''}subagent ${shownPath(f)}`;
    return `${prefix}${shortField(id)} ${KIND_COLUMN.get(row.kind) ?? row.kind.padEnd(KIND_WIDTH)} ${row.text}${marks ? `  ${marks}` : ''}`;
  });
}
