/**
 * Parity with Pi 1.6.0 (test/fixtures/pi-oracle/golden16*), on every case the
 * goldens hold, with the chars/4 estimator. Deliberate exception (oracle
 * README): Arbor's summarizer serialization keeps thinking lines by default;
 * the serialized hashes are compared with that option off (see serialize tests).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createHash } from 'node:crypto';
import { oracleCases } from '../support/fixtures';
import { buildContext } from '../../src/engine/context/buildContext';
import { Projection } from '../../src/engine/context/projection';
import { entryContextMessages } from '../../src/engine/context/entryMessages';
import { charsEstimator } from '../../src/engine/tokens/estimators';
import { estimateContextTokens, estimateProjectedContextTokens, shouldCompact } from '../../src/engine/context/contextTokens';
import { planCompaction, entryIdsAt } from '../../src/engine/compaction/planCompaction';
import { planBranch } from '../../src/engine/branch/planBranch';
import type { SessionIndex } from '../../src/engine/session/sessionIndex';
import { loadedSession } from '../support/loadWhole';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const sorted = (a: Iterable<string>) => [...a].sort();
const settings = (keepRecentTokens: number) => ({ enabled: true, reserveTokens: 16384, keepRecentTokens });

for (const c of oracleCases()) {
  describe(`Pi 1.6 parity: ${c.name}`, () => {
    const golden: any = JSON.parse(fs.readFileSync(c.goldenFile, 'utf8'));
    for (const validation of ['full', 'fast'] as const) {
      describe(`${validation} indexing`, () => {
        let index: SessionIndex;
        before(async () => {
          index = await loadedSession(c.sessionFile, { validation });
          assert.deepEqual(index.diagnostics, []);
        });

        it('tree shape, leaf and labels', () => {
          const id = (i: number) => index.record(i).id;
          assert.equal(index.leafId, golden.leafId);
          assert.equal(index.entryCount, golden.entryCount);
          assert.deepEqual(index.roots().map(id), golden.tree.roots);
          assert.deepEqual(sorted(index.leaves().map(id)), sorted(golden.tree.leaves));
          const bp: Record<string, string[]> = {};
          for (const [p, kids] of index.branchPoints()) bp[id(p)] = kids.map(id);
          assert.deepEqual(bp, golden.tree.branchPoints);
          assert.deepEqual(Object.fromEntries(index.labels()), golden.tree.labels);
        });

        it('per-entry token estimates', () => {
          for (const [entryId, tokens] of Object.entries(golden.entryTokens)) {
            const msgs = entryContextMessages(index.entryById(entryId)!);
            const mine = msgs.reduce((s, m) => s + charsEstimator.estimate(m), 0);
            assert.equal(mine, tokens, `entry ${entryId}`);
          }
        });

        it('context, model, thinking level and context tokens for every entry as leaf', () => {
          for (const [leafId, g] of Object.entries<any>(golden.contexts)) {
            const ctx = buildContext(index, index.indexOf(leafId));
            const where = `leaf ${leafId}`;
            assert.deepEqual(
              ctx.messages.map((m) => index.record(m.entryIndex).id),
              g.messageEntryIds,
              where,
            );
            assert.deepEqual(
              ctx.messages.map((m) => m.message.role),
              g.messageRoles,
              where,
            );
            assert.equal(ctx.thinkingLevel, g.thinkingLevel, where);
            assert.deepEqual(ctx.model, g.model, where);
            const est = estimateContextTokens(
              ctx.messages.map((m) => m.message),
              charsEstimator,
            );
            assert.deepEqual(est, g.estimateContextTokens, where);
            for (const [w, expected] of Object.entries(g.shouldCompact)) {
              assert.equal(shouldCompact(est.tokens, Number(w), settings(0)), expected, `${where} window ${w}`);
            }
            const projected = estimateProjectedContextTokens(new Projection(index, index.indexOf(leafId)), charsEstimator);
            assert.deepEqual(projected, g.estimateProjectedContextTokens, `${where} (projected)`);
          }
        });

        it('compaction plans for every entry as leaf and keepRecentTokens 1000/4000/20000', () => {
          for (const [leafId, byKeep] of Object.entries<any>(golden.compaction)) {
            for (const [keep, g] of Object.entries<any>(byKeep)) {
              const where = `leaf ${leafId} keep ${keep}`;
              const plan = planCompaction(index, {
                leafIndex: index.indexOf(leafId),
                settings: settings(Number(keep)),
                estimator: charsEstimator,
              });
              if (g.result === null) {
                assert.equal(plan.kind, 'nothing', `${where}: Pi has nothing to compact`);
                continue;
              }
              assert.equal(plan.kind, 'plan', where);
              if (plan.kind !== 'plan') continue;
              assert.equal(plan.firstKeptEntryId, g.firstKeptEntryId, where);
              assert.equal(plan.isSplitTurn, g.isSplitTurn, where);
              assert.equal(plan.tokensBefore, g.tokensBefore, where);
              assert.equal(plan.previousSummary === null ? null : sha(plan.previousSummary), g.previousSummary?.sha256 ?? null, where);
              assert.deepEqual(entryIdsAt(plan.projection, plan.summarizePositions), g.messagesToSummarize.entryIds, where);
              assert.deepEqual(entryIdsAt(plan.projection, plan.turnPrefixPositions), g.turnPrefixMessages.entryIds, where);
              assert.deepEqual(sorted(plan.fileOps.read), sorted(g.fileOps.read), where);
              assert.deepEqual(sorted(plan.fileOps.written), sorted(g.fileOps.written), where);
              assert.deepEqual(sorted(plan.fileOps.edited), sorted(g.fileOps.edited), where);
              assert.deepEqual(plan.readFiles, g.readFiles, where);
              assert.deepEqual(plan.modifiedFiles, g.modifiedFiles, where);
            }
          }
        });

        it('every cut outcome of the keepRecentTokens sweeps', () => {
          for (const [leafId, sweep] of Object.entries<any>(golden.cutSweeps)) {
            // A null sweep: the golden recorded none for that leaf (it ends in a compaction).
            if (sweep === null) {
              assert.equal(index.record(index.indexOf(leafId)).type, 'compaction');
              continue;
            }
            for (const row of sweep.rows) {
              const where = `leaf ${leafId} keep ${row.keepRecentTokens}`;
              const plan = planCompaction(index, {
                leafIndex: index.indexOf(leafId),
                settings: settings(row.keepRecentTokens),
                estimator: charsEstimator,
              });
              if (row.prepared === false) {
                assert.equal(plan.kind, 'nothing', where);
                continue;
              }
              assert.equal(plan.kind, 'plan', where);
              if (plan.kind !== 'plan') continue;
              assert.equal(plan.firstKeptEntryId, row.firstKeptEntryId, where);
              assert.equal(plan.isSplitTurn, row.isSplitTurn, where);
              assert.equal(plan.turnStartEntryId, row.isSplitTurn ? row.turnStartEntryId : null, where);
              assert.deepEqual(entryIdsAt(plan.projection, plan.summarizePositions), row.messagesToSummarize, where);
              assert.deepEqual(entryIdsAt(plan.projection, plan.turnPrefixPositions), row.turnPrefixMessages, where);
              assert.deepEqual(plan.readFiles, row.readFiles, where);
              assert.deepEqual(plan.modifiedFiles, row.modifiedFiles, where);
            }
          }
        });

        it('branch pairs: common ancestor, collected and prepared entries, file lists, new leaf', () => {
          for (const g of golden.branchPairs) {
            const where = `${g.fromId} -> ${g.toId}`;
            for (const [budget, gp] of Object.entries<any>(g.prepared)) {
              const plan = planBranch(index, { fromId: g.fromId, targetId: g.toId, budget: Number(budget), estimator: charsEstimator });
              assert.equal(plan.commonAncestorId, g.commonAncestorId, where);
              assert.deepEqual(
                plan.entryIndexes.map((i) => index.record(i).id),
                g.entryIds,
                where,
              );
              assert.equal(plan.newLeafId, g.derivedNavigateTreeNewLeafId, where);
              const w = `${where} budget ${budget}`;
              assert.deepEqual(
                plan.prepared.map((m) => index.record(m.entryIndex).id),
                gp.messageEntryIds,
                w,
              );
              assert.deepEqual(
                plan.prepared.map((m) => m.message.role),
                gp.messageRoles,
                w,
              );
              assert.equal(plan.totalTokens, gp.totalTokens, w);
              assert.deepEqual(sorted(plan.fileOps.read), sorted(gp.fileOps.read), w);
              assert.deepEqual(sorted(plan.fileOps.edited), sorted(gp.fileOps.edited), w);
              assert.deepEqual(sorted(plan.fileOps.written), sorted(gp.fileOps.written), w);
              assert.deepEqual(plan.readFiles, gp.readFiles, w);
              assert.deepEqual(plan.modifiedFiles, gp.modifiedFiles, w);
            }
          }
        });
      });
    }
  });
}
