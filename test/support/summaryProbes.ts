/**
 * The probe-based evaluation of summaries (issue 32 item 9): every probe file under test/fixtures/summary-probes/ and
 * test/fixtures/pi-written/ names a Pi-written session and scenarios (a compaction at a leaf, a branch summary of the
 * branch left behind), each with facts a resumer needs and statements that would mislead. Each scenario is run
 * through the engine's own operations (proposeCompaction, proposeNavigation) on a copy of the session with a given
 * Summarizer (default: the offline one), and its summary is matched against the probes (summaryProbeMatch.ts).
 * Used by bench/summaryProbes.ts and test/unit/summarize/summaryProbes.test.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { proposeCompaction } from '../../src/engine/operations/compact';
import { proposeNavigation } from '../../src/engine/operations/navigate';
import { DEFAULT_PI_SETTINGS } from '../../src/engine/settings/piSettings';
import { createOfflineSummarizer } from '../../src/engine/summarize/providers/offline';
import type { Summarizer } from '../../src/engine/summarize/summarizer';
import { countTokens, tokenizerEstimator } from '../../src/engine/tokens/estimators';
import { spanMessagesWalk } from '../../src/engine/context/messageSpan';
import { runEntryWalk } from '../../src/engine/session/entryWalkLoads';
import { repoRoot } from './fixtures';
import { parseSummarySections, probeMatches, probeProblems, type Probe } from './summaryProbeMatch';

export type { Probe } from './summaryProbeMatch';

export interface ProbeScenario {
  id: string;
  kind: 'compaction' | 'branch';
  /** Compaction: the leaf to plan at (null: the session's leaf). */
  leafId?: string | null;
  keepRecentTokens?: number;
  /** Branch: the leaf left behind (null: the session's leaf) and the entry navigated to. */
  fromId?: string | null;
  targetId?: string;
  customInstructions?: string | null;
  facts: Probe[];
  false: Probe[];
}

export interface ProbeFile {
  /** The probe file, absolute. */
  file: string;
  /** The session, relative to the repository root. */
  session: string;
  about: string;
  scenarios: ProbeScenario[];
  /** Why the file could not be read as JSON. */
  loadError?: string;
}

export interface ScenarioResult {
  /** The probe file's name without .json. */
  name: string;
  session: string;
  scenario: ProbeScenario;
  /** 'summary' when a summary was made; otherwise why not. */
  outcome: 'summary' | 'nothing' | 'cancelled' | 'error';
  reason?: string;
  summary: string;
  summaryTokens: number;
  /** Tokens of what was summarized (the span's messages, and a previous summary an update folds in). */
  spanTokens: number;
  /** summaryTokens / spanTokens (NaN without a summary). */
  compression: number;
  kept: Probe[];
  dropped: Probe[];
  falsePresent: Probe[];
}

/** The folders probe files are read from. */
export function probeDirs(): string[] {
  return [path.join(repoRoot, 'test', 'fixtures', 'summary-probes'), path.join(repoRoot, 'test', 'fixtures', 'pi-written')];
}

/** Every probe file (`*.json` directly in each folder; a folder that does not exist holds none), sorted by name. */
export function loadProbeFiles(dirs: readonly string[] = probeDirs()): ProbeFile[] {
  const out: ProbeFile[] = [];
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json') && !n.endsWith('.meta.json'))
      .sort()) {
      const file = path.join(dir, name);
      let raw: Omit<ProbeFile, 'file'>;
      try {
        raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<ProbeFile, 'file'>;
      } catch (err) {
        // Reported by probeFileProblems (a unit test), not thrown: one bad file must not stop every other test.
        out.push({ file, session: '', about: '', scenarios: [], loadError: (err as Error).message });
        continue;
      }
      if (!raw || typeof raw !== 'object' || !('scenarios' in raw)) continue; // not a probe file
      out.push({ ...raw, file });
    }
  }
  return out;
}

/** A probe file's name without its folder and .json. */
export function probeFileName(pf: ProbeFile): string {
  return path.basename(pf.file, '.json');
}

/** The ids of a session's entries (its header's excluded). */
export function sessionEntryIds(sessionFile: string): Set<string> {
  const ids = new Set<string>();
  for (const line of fs.readFileSync(sessionFile, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as { type?: string; id?: string };
      if (e.type !== 'session' && typeof e.id === 'string') ids.add(e.id);
    } catch {
      // a damaged line holds no id
    }
  }
  return ids;
}

/** Everything wrong with a probe file: regexes that do not compile, ids not unique, a session or entry not there. */
export function probeFileProblems(pf: ProbeFile): string[] {
  const out: string[] = [];
  const where = path.relative(repoRoot, pf.file);
  if (pf.loadError) return [`${where}: not JSON (${pf.loadError})`];
  if (!Array.isArray(pf.scenarios)) return [`${where}: "scenarios" is not a list`];
  const sessionFile = path.join(repoRoot, pf.session ?? '');
  if (typeof pf.session !== 'string' || !fs.existsSync(sessionFile)) return [`${where}: session ${pf.session} does not exist`];
  if (typeof pf.about !== 'string' || !pf.about.trim()) out.push(`${where}: no "about"`);
  const ids = sessionEntryIds(sessionFile);
  const scenarioIds = new Set<string>();
  for (const s of pf.scenarios) {
    const at = `${where} scenario ${s.id}`;
    if (scenarioIds.has(s.id)) out.push(`${at}: scenario id not unique`);
    scenarioIds.add(s.id);
    const entry = (name: string, id: string | null | undefined, required: boolean) => {
      if (id === undefined || id === null) {
        if (required) out.push(`${at}: no ${name}`);
      } else if (!ids.has(id)) out.push(`${at}: ${name} ${id} is not an entry of the session`);
    };
    if (s.kind === 'compaction') {
      entry('leafId', s.leafId, false);
      if (s.keepRecentTokens !== undefined && !(Number.isInteger(s.keepRecentTokens) && s.keepRecentTokens >= 0))
        out.push(`${at}: keepRecentTokens must be a whole number`);
    } else if (s.kind === 'branch') {
      entry('fromId', s.fromId, false);
      entry('targetId', s.targetId, true);
    } else out.push(`${at}: kind must be "compaction" or "branch"`);
    if (!Array.isArray(s.facts) || !Array.isArray(s.false)) {
      out.push(`${at}: "facts" and "false" must be lists`);
      continue;
    }
    const probeIds = new Set<string>();
    for (const p of [...s.facts, ...s.false]) {
      if (probeIds.has(p.id)) out.push(`${at}: probe id ${p.id} not unique`);
      probeIds.add(p.id);
      out.push(...probeProblems(p).map((m) => `${at}: ${m}`));
    }
  }
  return out;
}

async function tempCopy<T>(sessionFile: string, run: (copy: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-probes-'));
  try {
    const copy = path.join(dir, path.basename(sessionFile));
    fs.copyFileSync(sessionFile, copy);
    return await run(copy);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Made {
  outcome: ScenarioResult['outcome'];
  reason?: string;
  summary: string;
  spanTokens: number;
}

async function makeCompaction(copy: string, s: ProbeScenario, summarizer: Summarizer): Promise<Made> {
  const r = await proposeCompaction({
    file: copy,
    summarizer,
    estimator: 'tokenizer',
    piSettings: DEFAULT_PI_SETTINGS,
    compaction: s.keepRecentTokens === undefined ? undefined : { keepRecentTokens: s.keepRecentTokens },
    leafId: s.leafId ?? undefined,
    customInstructions: s.customInstructions ?? undefined,
  });
  if (r.kind !== 'proposal') return { outcome: r.kind, reason: r.reason, summary: '', spanTokens: 0 };
  const plan = r.plan;
  let spanTokens = plan.previousSummary ? countTokens(plan.previousSummary) : 0;
  const positions = [...plan.summarizePositions, ...plan.turnPrefixPositions];
  await runEntryWalk(
    r.index,
    spanMessagesWalk(plan.projection, positions, 1, (m) => void (spanTokens += tokenizerEstimator.estimate(m))),
  );
  return { outcome: 'summary', summary: r.summary, spanTokens: spanTokens || r.tokensBefore };
}

async function makeBranch(copy: string, s: ProbeScenario, summarizer: Summarizer): Promise<Made> {
  const r = await proposeNavigation({
    file: copy,
    summarizer,
    estimator: 'tokenizer',
    piSettings: DEFAULT_PI_SETTINGS,
    targetId: s.targetId!,
    fromId: s.fromId ?? undefined,
    summarize: true,
    customInstructions: s.customInstructions ?? undefined,
  });
  if (r.kind !== 'proposal') return { outcome: r.kind, reason: r.reason, summary: '', spanTokens: 0 };
  if (!r.summary) return { outcome: 'nothing', reason: 'the navigation made no summary', summary: '', spanTokens: 0 };
  const spanTokens = r.plan.prepared.reduce((n, m) => n + tokenizerEstimator.estimate(m.message), 0);
  return { outcome: 'summary', summary: r.summary.text, spanTokens };
}

/** Runs one scenario and scores its summary (a scenario that makes no summary keeps no fact). */
export async function runScenario(
  pf: ProbeFile,
  s: ProbeScenario,
  summarizer: Summarizer = createOfflineSummarizer(),
): Promise<ScenarioResult> {
  const sessionFile = path.join(repoRoot, pf.session);
  let made: Made;
  try {
    made = await tempCopy(sessionFile, (copy) =>
      s.kind === 'branch' ? makeBranch(copy, s, summarizer) : makeCompaction(copy, s, summarizer),
    );
  } catch (err) {
    made = { outcome: 'error', reason: err instanceof Error ? err.message : String(err), summary: '', spanTokens: 0 };
  }
  const sections = parseSummarySections(made.summary);
  const hasSummary = made.outcome === 'summary';
  const kept = hasSummary ? s.facts.filter((p) => probeMatches(sections, p)) : [];
  const summaryTokens = made.summary ? countTokens(made.summary) : 0;
  return {
    name: probeFileName(pf),
    session: pf.session,
    scenario: s,
    outcome: made.outcome,
    reason: made.reason,
    summary: made.summary,
    summaryTokens,
    spanTokens: made.spanTokens,
    compression: hasSummary && made.spanTokens > 0 ? summaryTokens / made.spanTokens : NaN,
    kept,
    dropped: s.facts.filter((p) => !kept.includes(p)),
    falsePresent: hasSummary ? s.false.filter((p) => probeMatches(sections, p)) : [],
  };
}

/** Whether `<session>` or `<session>:<scenario>` selects a scenario (no filter selects all). */
export function selected(only: readonly string[], name: string, scenarioId: string): boolean {
  if (only.length === 0) return true;
  return only.some((o) => {
    const [n, sc] = o.split(':');
    return (n === name || n === '' || n === '*') && (sc === undefined || sc === scenarioId);
  });
}

/** Runs every selected scenario of every probe file, in file and scenario order. */
export async function runProbes(
  options: { summarizer?: Summarizer; only?: readonly string[]; files?: readonly ProbeFile[] } = {},
): Promise<ScenarioResult[]> {
  const summarizer = options.summarizer ?? createOfflineSummarizer();
  const out: ScenarioResult[] = [];
  for (const pf of options.files ?? loadProbeFiles()) {
    for (const s of pf.scenarios) {
      if (selected(options.only ?? [], probeFileName(pf), s.id)) out.push(await runScenario(pf, s, summarizer));
    }
  }
  return out;
}
