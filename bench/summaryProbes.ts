/**
 * The probe-based evaluation of summaries (issue 32 item 9), part of `npm run bench`, or alone after
 * `npm run compile`:
 *
 *   node out/bench/summaryProbes.js [--show] [--only <session>[:<scenario>]]...
 *
 * For every probe file (test/fixtures/summary-probes/, test/fixtures/pi-written/) and scenario: the summary the
 * offline summarizer makes through the engine's operations, the facts it keeps out of those a resumer needs, the
 * false statements it makes, its tokens and its compression (summary tokens / tokens summarized); then totals and
 * every dropped fact and false statement by id. `--show` prints each summary above its scores.
 */
import { runProbes, type ScenarioResult } from '../test/support/summaryProbes';

export interface ProbeBenchOptions {
  show?: boolean;
  only?: string[];
  out?: (text: string) => void;
}

function pad(s: string | number, n: number, left = false): string {
  const t = String(s);
  return left ? t.padStart(n) : t.padEnd(n);
}

function describe(r: ScenarioResult): string {
  const s = r.scenario;
  if (s.kind === 'branch') return `branch ${s.fromId ?? 'leaf'} -> ${s.targetId}`;
  return `compact at ${s.leafId ?? 'leaf'}, keep ${s.keepRecentTokens ?? 'default'}`;
}

/** Prints the table of scores, the totals and the dropped facts and false statements; returns the results. */
export async function summaryProbesBench(options: ProbeBenchOptions = {}): Promise<ScenarioResult[]> {
  const out = options.out ?? ((t: string) => void process.stdout.write(t));
  const results = await runProbes({ only: options.only });
  out('\nSummary probes (offline summarizer; facts a resumer needs, statements that would mislead):\n');
  const header =
    `  ${pad('session', 20)} ${pad('scenario', 22)} ${pad('facts', 7, true)} ${pad('dropped', 7, true)} ` +
    `${pad('false', 5, true)} ${pad('tokens', 6, true)} ${pad('span', 7, true)} ${pad('ratio', 6, true)}\n`;
  let name = '';
  const tot = zero();
  const per = new Map<string, Totals>();
  if (!options.show) out(header);
  for (const r of results) {
    if (options.show) {
      out(
        `\n===== ${r.name}:${r.scenario.id} (${describe(r)}${r.scenario.customInstructions ? `; "${r.scenario.customInstructions}"` : ''})\n`,
      );
      out(r.outcome === 'summary' ? `${r.summary}\n` : `(no summary: ${r.outcome}${r.reason ? `, ${r.reason}` : ''})\n`);
      out(`-----\n${header}`);
    }
    const shownName = r.name === name && !options.show ? '' : r.name;
    name = r.name;
    const ratio = Number.isFinite(r.compression) ? r.compression.toFixed(3) : r.outcome;
    out(
      `  ${pad(shownName.slice(0, 20), 20)} ${pad(r.scenario.id.slice(0, 22), 22)} ${pad(`${r.kept.length}/${r.scenario.facts.length}`, 7, true)} ` +
        `${pad(r.dropped.length, 7, true)} ${pad(r.falsePresent.length, 5, true)} ${pad(r.summaryTokens, 6, true)} ` +
        `${pad(r.spanTokens, 7, true)} ${pad(ratio, 6, true)}\n`,
    );
    if (options.show) {
      for (const p of r.dropped) out(`    dropped ${p.id}: ${p.what}\n`);
      for (const p of r.falsePresent) out(`    FALSE   ${p.id}: ${p.what}\n`);
    }
    if (!per.has(r.name)) per.set(r.name, zero());
    for (const t of [tot, per.get(r.name)!]) {
      t.scenarios++;
      t.facts += r.scenario.facts.length;
      t.kept += r.kept.length;
      t.dropped += r.dropped.length;
      t.falses += r.falsePresent.length;
      t.falseProbes += r.scenario.false.length;
      t.summary += r.summaryTokens;
      t.span += r.spanTokens;
      if (r.outcome !== 'summary') t.noSummary++;
    }
  }
  const line = (label: string, t: Totals) =>
    `  ${pad(label, 20)} ${pad(`${t.scenarios} scenarios`, 22)} ${pad(`${t.kept}/${t.facts}`, 7, true)} ${pad(t.dropped, 7, true)} ` +
    `${pad(t.falses, 5, true)} ${pad(t.summary, 6, true)} ${pad(t.span, 7, true)} ${pad(t.span ? (t.summary / t.span).toFixed(3) : '-', 6, true)}\n`;
  out('\n  per session:\n');
  for (const [n, t] of per) out(line(n, t));
  out(line('TOTAL', tot));
  const pct = tot.facts ? ((100 * tot.kept) / tot.facts).toFixed(1) : '-';
  out(
    `  totals: facts kept ${tot.kept} of ${tot.facts} (${pct}%), dropped ${tot.dropped}, false statements ${tot.falses} ` +
      `(of ${tot.falseProbes} probed), summary tokens ${tot.summary} for ${tot.span} summarized ` +
      `(compression ${tot.span ? (tot.summary / tot.span).toFixed(3) : '-'}), scenarios without a summary ${tot.noSummary}\n`,
  );
  if (!options.show) {
    const dropped = results.flatMap((r) => r.dropped.map((p) => `    ${r.name}:${r.scenario.id} ${p.id}: ${p.what}\n`));
    const falses = results.flatMap((r) => r.falsePresent.map((p) => `    ${r.name}:${r.scenario.id} ${p.id}: ${p.what}\n`));
    const none = results
      .filter((r) => r.outcome !== 'summary')
      .map((r) => `    ${r.name}:${r.scenario.id}: ${r.outcome} ${r.reason ?? ''}\n`);
    out(`\n  false statements present (${falses.length}):\n${falses.join('') || '    (none)\n'}`);
    out(`\n  facts dropped (${dropped.length}):\n${dropped.join('') || '    (none)\n'}`);
    if (none.length) out(`\n  scenarios without a summary (${none.length}):\n${none.join('')}`);
  }
  return results;
}

type Totals = ReturnType<typeof zero>;

function zero() {
  return { facts: 0, kept: 0, dropped: 0, falses: 0, falseProbes: 0, summary: 0, span: 0, noSummary: 0, scenarios: 0 };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const only: string[] = [];
  let show = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--show') show = true;
    else if (args[i] === '--only' && args[i + 1]) only.push(args[++i]);
    else if (args[i].startsWith('--only=')) only.push(args[i].slice('--only='.length));
    else {
      process.stderr.write(`usage: node out/bench/summaryProbes.js [--show] [--only <session>[:<scenario>]]...\n`);
      process.exit(2);
    }
  }
  summaryProbesBench({ show, only }).catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
