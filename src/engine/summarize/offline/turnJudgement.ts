import { clip, sentences, squash } from './text';
import { statusProgram } from './commandStatus';
import { detachedText } from '../../text/detachedText';
import { editPairs, editTexts, introducedBy, smallReplacement } from './introduced';
import { MODIFYING_TOOLS, SHELL_TOOLS, sameTarget, type Call, type Problem, type Turn } from './extraction';

/**
 * How the extraction judges a turn: whether its answer reports a failure or
 * got past it, whether a later call reached what a failed one was after,
 * whether an answer proposes rather than acts, and what a change introduces.
 */

/** An answer that reports a failure (not one that merely worked around it). */
export const FAILURE_WORDS = /\b(?:fail(?:s|ed|ing|ure)?|error|errors|could ?n[o']t|cannot|can't|unable|not found|broken|blocked|still)\b/i;

export function basename(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/**
 * Whether a finished turn's answer reports a failure of its own (else the
 * turn got past it): it quotes the error, or it speaks of failing and names
 * what failed, or it speaks of failing and nothing succeeded after the failure.
 */
export function answerReports(answer: string, p: Problem, target: string | undefined, succeededAfter: boolean): boolean {
  if (!answer) return false;
  const lower = answer.toLowerCase();
  const error = p.error.toLowerCase().slice(0, 30);
  if (error.length >= 8 && lower.includes(error)) return true;
  if (!FAILURE_WORDS.test(answer)) return false;
  const name = target ? basename(target).toLowerCase() : '';
  return (name.length >= 3 && lower.includes(name)) || !succeededAfter;
}

/** Whether `later` (a success) reached what `failed` was after: the same file, a file inside the failed path, or the same term. */
export function sameGoal(failed: Call, later: Call, cwd: string | undefined): boolean {
  if (!failed.target || !later.target) return false;
  const a = sameTarget(failed.target, cwd);
  const b = sameTarget(later.target, cwd);
  if (a === b) return true;
  const family = (c: Call) => (MODIFYING_TOOLS.has(c.tool) ? 'modify' : c.tool);
  if (failed.path && later.path)
    return (
      basename(failed.path) === basename(later.path) || (family(failed) === family(later) && b.startsWith(`${a.replace(/\/+$/, '')}/`))
    );
  // A search or a command by another tool: the failed call's term (a pattern, a path) in the later command.
  return a.length >= 3 && b.includes(a);
}

/** An answer that proposes or asks before acting: its last sentence is a question, or it opens with a plan. */
export function isProposal(answer: string): boolean {
  // A closing pleasantry ("Anything else?") asks nothing.
  const all = sentences(answer, 60).filter(
    (x) => !/^(?:anything else|is there anything|need anything|let me know|does (?:that|this) help)/i.test(x),
  );
  const last = all.length ? all[all.length - 1] : '';
  return last.endsWith('?') || /^\s*(?:#+\s*)?(?:\*\*)?(?:plan|proposal|here is my plan)\b/i.test(answer);
}

/** Programs that only read. */
const LOOKING = new Set([
  'cat',
  'ls',
  'head',
  'tail',
  'grep',
  'rg',
  'find',
  'wc',
  'sed',
  'awk',
  'cut',
  'sort',
  'uniq',
  'tree',
  'pwd',
  'echo',
  'file',
  'stat',
]);

/** A turn whose answer proposes or asks and that changed and ran nothing (after a run, a closing question is an offer). */
export function proposesOnly(t: Turn): boolean {
  // A command that only looks (cat, ls, grep…) is reading, like the read tool: a plan asked about after it is still a plan.
  const ran = (c: Call) => SHELL_TOOLS.has(c.tool) && !!c.target && !LOOKING.has(statusProgram(c.target));
  const acted = (c: Call) => !!c.result && (ran(c) || (MODIFYING_TOOLS.has(c.tool) && !c.result.isError));
  return !!t.answer && isProposal(t.answer) && !t.calls.some(acted);
}

/** An offer to fix something ("Want me to fix it?", "Shall I correct the import?"). */
const FIX_OFFER = /\b(?:fix|fixes|fixing|repair|correct|resolve|address|patch)\b/i;

/**
 * Declining an offer to fix, made at the close of a turn's answer ("Want me to fix it?" "Not now"), puts off fixing
 * that turn's open errors (an offer of something else declines nothing of them).
 */
export function postponeFixes(problems: readonly Problem[], turn: Turn, said: string): void {
  const offer = turn.answer ? lastOffer(turn.answer) : null;
  if (!offer || !FIX_OFFER.test(offer)) return;
  for (const p of problems) if (!p.resolved && p.messageIndex > turn.requestIndex) p.postponed ??= said;
}

/** The last offer or question of an answer ("Shall I add a CSV export?", "I can fix that next."), or null. */
export function lastOffer(answer: string): string | null {
  const all = sentences(answer, 60);
  for (let i = all.length - 1; i >= Math.max(0, all.length - 3); i--) {
    const s = all[i];
    if (s.endsWith('?') || /^(?:I can|I could|I'd suggest|shall I|should I|want me to|next,? I)\b/i.test(s))
      return detachedText(clip(s, 160));
  }
  return null;
}

/** What a change call introduces (see introduced.ts), and a small written file's content. */
export function changeFacts(tool: string, path: string, args: Record<string, unknown> | undefined, cwd: string | undefined): string[] {
  if (!args || typeof args !== 'object') return [];
  if (tool === 'write' || tool === 'create') {
    const content = typeof args.content === 'string' ? args.content : '';
    const out = introducedBy(content);
    if (content.trim() && content.length <= 240) out.unshift(detachedText(`${sameTarget(path, cwd)} written as: ${squash(content)}`));
    return out;
  }
  const { oldText, newText } = editTexts(args);
  const out = introducedBy(newText, oldText);
  const pairs = editPairs(args);
  if (pairs.length <= 2)
    for (const p of pairs) {
      const r = p && typeof p === 'object' ? (p as Record<string, unknown>) : {};
      const o = r.oldText ?? r.old_string;
      const n = r.newText ?? r.new_string;
      const replaced = typeof o === 'string' && typeof n === 'string' ? smallReplacement(o, n) : null;
      if (replaced) out.push(`${sameTarget(path, cwd)}: ${replaced}`);
    }
  return out;
}
