import {
  FENCE,
  headingOf,
  isTurnHeading,
  MAIN_SECTIONS,
  RULE,
  TURN_CONTEXT_SEPARATOR,
  TURN_HEADING_NORM,
  type Heading,
} from './summaryHeadings';

/**
 * The outline of a summary, in one forward pass over its lines: which lines
 * are inside code fences, which are headings (each recognized and
 * normalized once), and where the split-turn part starts. Linear in the
 * text, with one small record per heading and per separator line.
 */
export interface SummaryOutline {
  lines: string[];
  /** Lines before the split-turn part (all of them without one). */
  bodyEnd: number;
  /** Whether line i is a fence line or inside a fence. */
  inFence: Uint8Array;
  /** The heading on line i (never inside a fence), or undefined. */
  headings: (Heading | undefined)[];
  /** The split-turn part after the separator (without its heading), or null. */
  turn: string | null;
}

/**
 * Finds where the split-turn part starts: a separator line followed by a
 * heading naming the turn, or by no main-section heading at all; or, without
 * a separator, Arbor's turn-context heading itself (the first of these in
 * line order).
 */
export function outlineOf(text: string): SummaryOutline {
  const lines = text.split('\n');
  const n = lines.length;
  const inFence = new Uint8Array(n);
  const headings: (Heading | undefined)[] = new Array(n);
  // Separator lines, and the first heading after each (filled in as the pass reaches it).
  const separators: number[] = [];
  const headingAfter: number[] = [];
  let unresolved = 0;
  let lastText = -1;
  let lastMainHeading = -1;
  let turnHeading = -1;
  let fenceOpen = false;
  for (let i = 0; i < n; i++) {
    const line = lines[i];
    const isFence = FENCE.test(line);
    const fenced = fenceOpen || isFence;
    if (isFence) fenceOpen = !fenceOpen;
    const blank = line.trim() === '';
    if (!blank) lastText = i;
    if (fenced) {
      inFence[i] = 1;
      continue;
    }
    const h = headingOf(line);
    if (h) {
      headings[i] = h;
      for (; unresolved < separators.length; unresolved++) headingAfter[unresolved] = i;
      if (h.key && MAIN_SECTIONS.has(h.key)) lastMainHeading = i;
    }
    if (!blank && (line.trim() === TURN_CONTEXT_SEPARATOR || RULE.test(line))) {
      separators.push(i);
      headingAfter.push(-1);
    } else if (h && h.atx && h.norm === TURN_HEADING_NORM && turnHeading < 0) {
      turnHeading = i;
    }
  }
  const outline = { lines, bodyEnd: n, inFence, headings, turn: null as string | null };
  for (let s = 0; s < separators.length; s++) {
    const i = separators[s];
    if (turnHeading >= 0 && turnHeading < i) break;
    if (lastText <= i) continue; // nothing after the separator
    const h = headingAfter[s] >= 0 ? headings[headingAfter[s]] : undefined;
    if ((h && isTurnHeading(h)) || lastMainHeading <= i) return split(outline, i, i + 1);
  }
  return turnHeading >= 0 ? split(outline, turnHeading, turnHeading) : outline;
}

/** The outline with its body ending before line `end` and the turn part read from line `from`. */
function split(outline: SummaryOutline, end: number, from: number): SummaryOutline {
  const { lines, inFence, headings } = outline;
  let k = from;
  while (k < lines.length && !lines[k].trim()) k++;
  if (k < lines.length && !inFence[k]) {
    const h = headings[k];
    if (h && isTurnHeading(h)) k++;
  }
  const turn = lines.slice(k).join('\n').trim();
  return { ...outline, bodyEnd: end, turn: turn || null };
}
