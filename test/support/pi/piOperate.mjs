// Dev-only oracle (Pi 1.6, run on Node 22+): for each job, (a) opens the file
// Arbor wrote and reports Pi's context there, and (b) performs the same
// operation itself, with the same fields, on a copy of the file Arbor started
// from, through Pi's own SessionManager (and Pi's own branch-entry collection
// and budget preparation for navigation), and reports Pi's context at its new
// leaf. Both sides also report the entries they added, normalized so they can
// be compared (new ids numbered, Arbor's leaf-move bookkeeping left out).
// Usage: node piOperate.mjs JOBS.json   (prints a JSON array)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.env.PI_PACKAGE_DIR;
if (!root) throw new Error('PI_PACKAGE_DIR must name the Pi 1.6 package folder');
const load = (rel) => import(pathToFileURL(path.join(root, rel)).href);
const { SessionManager } = await load('dist/core/session-manager.js');
const { collectEntriesForBranchSummary, prepareBranchEntries } = await load('dist/core/compaction/branch-summarization.js');

const ARBOR_LEAF_MARKER = 'arbor/leaf-move';
const text = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => (b.type === 'text' ? b.text : b.type === 'toolCall' ? `${b.name}:${JSON.stringify(b.arguments)}` : b.type === 'thinking' ? `~${b.thinking}` : `[${b.type}]`)).join('|') : '');
function reduce(m) {
  if (m.role === 'compactionSummary' || m.role === 'branchSummary') return { role: m.role, text: m.summary };
  if (m.role === 'bashExecution') return { role: m.role, text: `${m.command}\n${m.output}` };
  if (m.role === 'system') return { role: m.role, text: text(m.content), sections: m.sections ?? null, tools: (m.toolsAdded ?? []).map((t) => t.name) };
  return { role: m.role, text: text(m.content) };
}
const contextOf = (sm) => sm.buildSessionContext().messages.map(reduce);

/** The entries added after `known` ids, normalized: Arbor's leaf markers dropped, new ids numbered in order. */
function added(entries, known) {
  const fresh = entries.filter((e) => !known.has(e.id));
  const parentOf = new Map(fresh.map((e) => [e.id, e.parentId]));
  const dropped = new Set(fresh.filter((e) => e.type === 'custom' && e.customType === ARBOR_LEAF_MARKER).map((e) => e.id));
  const lift = (id) => { while (id && dropped.has(id)) id = parentOf.get(id) ?? null; return id; };
  const names = new Map();
  for (const e of fresh) if (!dropped.has(e.id)) names.set(e.id, `new#${names.size}`);
  const name = (id) => (id === null || id === undefined ? id ?? null : names.get(lift(id)) ?? lift(id));
  return fresh.filter((e) => !dropped.has(e.id)).map((e) => {
    const out = { type: e.type, parentId: name(e.parentId) };
    if (e.type === 'label') Object.assign(out, { targetId: name(e.targetId), label: e.label });
    if (e.type === 'branch_summary') Object.assign(out, { fromId: name(e.fromId), summary: e.summary, details: e.details ?? null, hasUsage: e.usage !== undefined });
    if (e.type === 'compaction') {
      const { timestamp, ...system } = e.systemMessage ?? {};
      Object.assign(out, {
        summary: e.summary, firstKeptEntryId: e.firstKeptEntryId, tokensBefore: e.tokensBefore, details: e.details ?? null,
        systemMessage: e.systemMessage ? system : null,
        systemMessageTimestampIsEntrys: e.systemMessage ? timestamp === Date.parse(e.timestamp) : null,
      });
    }
    return out;
  });
}

function navigate(sm, op) {
  const oldLeafId = sm.getLeafId();
  const target = sm.getEntry(op.targetId);
  const { entries } = collectEntriesForBranchSummary(sm, oldLeafId, op.targetId);
  let summary; // what Pi's navigateTree would write: [text, details, usage]
  let nothingToSummarize = false;
  if (op.summarize && entries.length > 0) {
    nothingToSummarize = prepareBranchEntries(entries, op.budget).messages.length === 0;
    // The text is Arbor's (the wording is not compared); whether a summary exists and its fields are Pi's decision.
    summary = nothingToSummarize
      ? [op.summaryText ?? '(Pi writes a branch summary here)', { readFiles: [], modifiedFiles: [] }, undefined]
      : [op.summaryText ?? '(Pi writes a branch summary here)', op.details, op.usage];
  }
  const toParent = (target.type === 'message' && target.message.role === 'user') || target.type === 'custom_message';
  const newLeafId = toParent ? target.parentId : target.id;
  if (summary) {
    const id = sm.branchWithSummary(newLeafId, summary[0], summary[1], false, summary[2]);
    if (op.label) sm.appendLabelChange(id, op.label);
  } else if (newLeafId === null) sm.resetLeaf();
  else sm.branch(newLeafId);
  if (op.label && !summary) sm.appendLabelChange(op.targetId, op.label);
  return { nothingToSummarize, wroteSummary: !!summary };
}

const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const job of jobs) {
  const known = new Set(SessionManager.open(job.start, path.dirname(job.start)).getEntries().map((e) => e.id));
  const arbor = SessionManager.open(job.arborFile, path.dirname(job.arborFile));
  fs.copyFileSync(job.start, job.piCopy);
  const pi = SessionManager.open(job.piCopy, path.dirname(job.piCopy));
  let decision = null;
  if (job.op.kind === 'compact') {
    const o = job.op;
    pi.appendCompaction(o.summary, o.firstKeptEntryId, o.tokensBefore, o.details, o.fromHook, o.usage);
  } else decision = navigate(pi, job.op);
  results.push({
    name: job.name,
    decision,
    arbor: { context: contextOf(arbor), added: added(arbor.getEntries(), known) },
    pi: { context: contextOf(pi), added: added(pi.getEntries(), known) },
  });
}
process.stdout.write(JSON.stringify(results));
