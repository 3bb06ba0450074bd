/**
 * Issue 20 item 5: compaction and export of a generated session with no
 * compaction in it (the whole file is one span), run by the built CLI in
 * its own process, measured with /usr/bin/time -v (wall time, peak RSS):
 *   node out/bench/bigSession.js MB [MB...]
 * For each size: `arbor compact` offline, through the fake provider in the
 * OpenAI and the Anthropic format, and `arbor export` to a file. The session
 * is generated under bench/.data (never committed), cut back to its size after
 * each compaction, and deleted at the end (the disk is shared).
 */
import { existsSync, mkdirSync, promises as fsp, statSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import { generateSession } from './generateSession';
import { startFakeProvider, type FakeProviderServer } from '../test/support/fakeProvider';
import { measuredRow, timedCli as timed, type Measured } from './timedCli';

const repo = path.resolve(__dirname, '..', '..');
const data = path.join(repo, 'bench', '.data');

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number);
  if (!sizes.length || sizes.some((n) => !(n > 0))) throw new Error('usage: node out/bench/bigSession.js MB [MB...]');
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed (GNU time, for the peak RSS)');
  mkdirSync(data, { recursive: true });
  const server: FakeProviderServer = await startFakeProvider();
  server.setFallback({ type: 'text', text: '## Goal\n- Keep the session going\n\n## Next Steps\n1. Continue' });
  const agentDir = await fsp.mkdtemp(path.join(data, 'agent-'));
  const env = { PI_CODING_AGENT_DIR: agentDir, OPENAI_API_KEY: 'sk-bench-0000', ANTHROPIC_API_KEY: 'sk-bench-0000' };
  const rows: Measured[] = [];
  try {
    for (const mb of sizes) {
      const file = path.join(data, `big-${mb}mb.jsonl`);
      if (!existsSync(file)) await generateSession({ file, targetBytes: mb * 1024 * 1024, compactionEvery: 0 });
      const size = statSync(file).size;
      const compact = async (job: string, extra: string[]) => {
        rows.push(await timed(`${mb} MB ${job}`, ['compact', file, '--json', ...extra], env));
        truncateSync(file, size);
      };
      await compact('compact offline', ['--provider', 'offline']);
      await compact('compact openai (fake)', ['--provider', 'openai', '--base-url', server.openaiBaseURL]);
      await compact('compact anthropic (fake)', ['--provider', 'anthropic', '--base-url', server.anthropicBaseURL]);
      const out = path.join(data, `big-${mb}mb.md`);
      rows.push(await timed(`${mb} MB export md`, ['export', file, '--out', out, '--force'], env));
      const requests = server.requests.splice(0);
      const longest = Math.max(0, ...requests.map((r) => JSON.stringify(r.body ?? '').length));
      process.stdout.write(`${mb} MB: ${size} bytes; ${requests.length} provider requests, the longest body ${longest} characters\n`);
      await fsp.rm(out, { force: true });
      await fsp.rm(file, { force: true });
    }
  } finally {
    await server.stop();
    await fsp.rm(agentDir, { recursive: true, force: true });
  }
  for (const r of rows) process.stdout.write(measuredRow(r));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
