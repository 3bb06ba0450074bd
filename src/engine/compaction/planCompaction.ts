import { Projection } from '../context/projection';
import { projectedContextTokensWalk, shouldCompact, type ContextTokens } from '../context/contextTokens';
import { findCutPoint } from './cutPoint';
import { collectPins, type PinnedEntry } from './pins';
import { addDetailsFileOps, addMessageFileOps, createFileOps, fileLists, type FileOps } from './fileOps';
import type { SessionIndex } from '../session/sessionIndex';
import type { TokenEstimator } from '../tokens/estimators';
import { entryRead, walkInMemory, type EntryWalk } from '../session/entryWalk';
import { nothingToCompact, type NothingToCompact } from './nothingToCompact';
import { projectedEntryTokensWalk } from '../context/entryTokens';

export interface CompactionSettings {
  enabled: boolean;
  reserveTokens: number;
  keepRecentTokens: number;
}

export interface PlanCompactionOptions {
  settings: CompactionSettings;
  estimator: TokenEstimator;
  /** Entry index of the leaf to plan for (default: the session's leaf). */
  leafIndex?: number;
  /** The projection at leafIndex, when the caller has made it already. */
  projection?: Projection;
  /** When given, the plan says whether the context crosses the auto-compaction threshold. */
  contextWindow?: number;
  signal?: AbortSignal;
}

export interface CompactionPlan {
  kind: 'plan';
  projection: Projection;
  leafId: string;
  firstKeptEntryId: string;
  isSplitTurn: boolean;
  /** First entry of the split turn, or null. */
  turnStartEntryId: string | null;
  /** Entry id at which the summarized span starts (after the previous compaction). */
  boundaryStartEntryId: string | null;
  tokensBefore: number;
  contextTokens: ContextTokens;
  previousSummary: string | null;
  previousCompactionId: string | null;
  /** Projected positions whose messages are summarized, and those of the turn prefix. */
  summarizePositions: number[];
  turnPrefixPositions: number[];
  fileOps: FileOps;
  readFiles: string[];
  modifiedFiles: string[];
  /** Pinned entries on the path before the first kept entry (carried verbatim into the summary). */
  pinned: PinnedEntry[];
  shouldCompact: boolean | null;
}

export type { NothingToCompact } from './nothingToCompact';

export type CompactionPlanResult = CompactionPlan | NothingToCompact;

/**
 * Spec 4, steps 1-3 and 6 (prepare, pure): where the kept part starts, what is
 * summarized, the turn prefix of a split turn, the previous summary, the file
 * lists and tokensBefore. Parses only the entries it has to; the file-operation
 * hints of lines on disk must have been decided (planSessionCompaction does).
 * Its entries must be in memory; the run step (planSessionCompaction) walks
 * planCompactionWalk, which loads them a batch at a time.
 */
export function planCompaction(index: SessionIndex, options: PlanCompactionOptions): CompactionPlanResult {
  return walkInMemory(planCompactionWalk(index, options));
}

/** planCompaction as a walk (session/entryWalk.ts): the entries it reads are asked for as it goes. */
export function* planCompactionWalk(index: SessionIndex, options: PlanCompactionOptions): EntryWalk<CompactionPlanResult> {
  const leafIndex = options.leafIndex ?? index.leafIndex;
  if (leafIndex < 0) return nothingToCompact({ kind: 'empty' });
  if (index.record(leafIndex).type === 'compaction') return nothingToCompact({ kind: 'alreadyCompacted' });
  options.signal?.throwIfAborted();
  const given = options.projection;
  const p = given?.index === index && given.leaf === leafIndex ? given : new Projection(index, leafIndex);
  const hasPrevious = p.hasCompaction;
  const boundaryStart = hasPrevious ? p.summaryPos + 1 : 0;
  const boundaryEnd = p.length;
  const contextTokens = yield* projectedContextTokensWalk(p, options.estimator);
  options.signal?.throwIfAborted();
  const cut = yield* findCutPoint(p, boundaryStart, boundaryEnd, options.settings.keepRecentTokens, options.estimator);
  if (cut.firstKeptPos >= p.length) return nothingToCompact({ kind: hasPrevious ? 'alreadyCompacted' : 'empty' });
  const historyEnd = cut.isSplitTurn ? cut.turnStartPos : cut.firstKeptPos;
  const summarizePositions = summarizedPositions(p, boundaryStart, historyEnd);
  const turnPrefixPositions = cut.isSplitTurn ? summarizedPositions(p, cut.turnStartPos, cut.firstKeptPos) : [];
  if (summarizePositions.length === 0 && turnPrefixPositions.length === 0) {
    const spanTokens = yield* spanTokensWalk(p, boundaryStart, boundaryEnd, options.estimator);
    return nothingToCompact({
      kind: 'withinKeptBudget',
      spanTokens,
      afterCompaction: hasPrevious,
      keepRecentTokens: options.settings.keepRecentTokens,
      suggestedKeepRecentTokens: null, // looked for by the run step (planSessionCompaction), which may plan again
    });
  }

  const fileOps = createFileOps();
  let previousSummary: string | null = null;
  let previousCompactionId: string | null = null;
  const prev = hasPrevious ? index.entryOfType(p.entries[p.summaryPos], 'compaction') : undefined;
  if (prev) {
    previousSummary = typeof prev.summary === 'string' ? prev.summary : '';
    previousCompactionId = prev.id;
    if (prev.fromHook !== true) addDetailsFileOps(prev.details, fileOps);
  }
  yield* addFileOps(p, [summarizePositions, turnPrefixPositions], fileOps);
  const pinned = yield* collectPins(p, p.entries[cut.firstKeptPos]);
  const lists = fileLists(fileOps);
  const rec = (pos: number) => index.record(p.entries[pos]);

  return {
    kind: 'plan',
    projection: p,
    leafId: index.record(leafIndex).id,
    firstKeptEntryId: rec(cut.firstKeptPos).id,
    isSplitTurn: cut.isSplitTurn,
    turnStartEntryId: cut.isSplitTurn ? rec(cut.turnStartPos).id : null,
    boundaryStartEntryId: boundaryStart < p.length ? rec(boundaryStart).id : null,
    tokensBefore: contextTokens.tokens,
    contextTokens,
    previousSummary,
    previousCompactionId,
    summarizePositions,
    turnPrefixPositions,
    fileOps,
    readFiles: lists.readFiles,
    modifiedFiles: lists.modifiedFiles,
    pinned,
    shouldCompact:
      options.contextWindow === undefined ? null : shouldCompact(contextTokens.tokens, options.contextWindow, options.settings),
  };
}

/** The tokens of the projected entries in [from, to), each counted as the cut counts it (newest first, as it reads them). */
function* spanTokensWalk(p: Projection, from: number, to: number, estimator: TokenEstimator): EntryWalk<number> {
  let sum = 0;
  for (let pos = to - 1; pos >= from; pos--) {
    if (p.roles(pos).length === 0) continue;
    sum += yield* projectedEntryTokensWalk(p, pos, estimator, -1);
  }
  return sum;
}

/** Positions in [from, to) that contribute messages to a summary (compactions and system prompts never do). */
function summarizedPositions(p: Projection, from: number, to: number): number[] {
  // Gathered in a typed array, then copied into one array of its size (a growing one of 5e5 positions leaves its
  // copies to V8's full collection); each position's roles are read once.
  const found = new Int32Array(Math.max(0, to - from));
  let n = 0;
  for (let pos = from; pos < to; pos++) {
    if (p.index.record(p.entries[pos]).type !== 'compaction' && !onlySystem(p.roles(pos))) found[n++] = pos;
  }
  const out = new Array<number>(n);
  for (let k = 0; k < n; k++) out[k] = found[k];
  return out;
}

/** Whether every role is 'system' (none: true). */
function onlySystem(roles: readonly string[]): boolean {
  for (const r of roles) if (r !== 'system') return false;
  return true;
}

/** The file operations of the messages at `positions`, oldest first: only the entries that may hold one are read. */
function* addFileOps(p: Projection, positions: readonly (readonly number[])[], ops: FileOps): EntryWalk<void> {
  // Skip parsing lines that cannot hold a file operation.
  const read: number[] = [];
  for (const list of positions)
    for (const pos of list) {
      const i = p.entries[pos];
      if (!(p.index.record(i).type === 'message' && !p.editFor(pos) && !p.index.mayHoldFileOps(i))) read.push(pos);
    }
  const order = read.map((pos) => p.entries[pos]);
  for (let k = 0; k < read.length; k++) {
    yield entryRead(order, k, 1);
    for (const m of p.transientMessages(read[k])) addMessageFileOps(m, ops, p.index.agent);
  }
}

/** The entry id at a projected position, for reports and the CLI. */
export function entryIdAt(p: Projection, pos: number): string {
  return p.index.record(p.entries[pos]).id;
}

/** Entry ids for positions. */
export function entryIdsAt(p: Projection, positions: readonly number[]): string[] {
  return positions.map((pos) => entryIdAt(p, pos));
}
