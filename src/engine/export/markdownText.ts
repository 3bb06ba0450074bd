import { visibleControls } from './controls';

/**
 * Session text as Markdown a reader can read (a reply's lists, emphasis, code blocks and links render as written),
 * which still cannot break the document it sits in nor reach outside it. Outside code (fences and code spans):
 * a `<` that could start HTML and an `&` that could start an entity become entities (no raw HTML, autolink or
 * entity from the session), an image becomes its text (`\![`: nothing is loaded), a heading line reads as a bold
 * line and other heading marks (`#` words, `===`/`---` under a line) are shown literally, so the export's own
 * headings are the only ones. A fence left open is closed at the end of the text. Control and bidi
 * characters are shown as `\u{…}`. Linear: one pass over the lines, each line once.
 */
export function mdBody(text: string): string {
  const lines = visibleControls(text).replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      out.push(line);
      if (marker && marker[1][0] === fence.char && marker[1].length >= fence.length && !line.slice(marker[0].length).trim())
        fence = undefined;
      continue;
    }
    // An opening fence: a backtick fence's info string holds no backtick.
    if (marker && !(marker[1][0] === '`' && line.slice(marker[0].length).includes('`'))) {
      fence = { char: marker[1][0], length: marker[1].length };
      out.push(`${marker[0]}${plainInfo(line.slice(marker[0].length))}`);
      continue;
    }
    out.push(mdLine(line));
  }
  if (fence) out.push(fence.char.repeat(fence.length));
  return out.join('\n');
}

/** A fence's info string: a word, nothing that could be markup. */
function plainInfo(info: string): string {
  return info.replace(/[^\w+#.-]/g, ' ').trimEnd();
}

/** One line outside fences: code spans kept, the rest escaped where it could be HTML, an image or a heading. */
function mdLine(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf('`', i);
    if (tick < 0) {
      out += escapeText(line.slice(i));
      break;
    }
    out += escapeText(line.slice(i, tick));
    let run = tick;
    while (line.charCodeAt(run) === 0x60) run++;
    const ticks = line.slice(tick, run);
    const close = closingRun(line, run, ticks.length);
    if (close < 0) {
      // No closing run on the line: the backticks are text.
      out += ticks.replace(/`/g, '\\`');
      i = run;
      continue;
    }
    out += line.slice(tick, close + ticks.length);
    i = close + ticks.length;
  }
  return headingSafe(out);
}

/** Where a run of exactly `n` backticks starts at or after `from`, or -1. */
function closingRun(line: string, from: number, n: number): number {
  for (let k = line.indexOf('`', from); k >= 0;) {
    let end = k;
    while (line.charCodeAt(end) === 0x60) end++;
    if (end - k === n) return k;
    k = line.indexOf('`', end);
  }
  return -1;
}

/** Only what could start HTML (a tag, comment, autolink), an entity, or an image is escaped: `a < b & c` stays as written. */
function escapeText(text: string): string {
  return text
    .replace(/&(?=#?[a-zA-Z0-9]+;)/g, '&amp;')
    .replace(/<(?=[a-zA-Z/!?])/g, '&lt;')
    .replace(/!\[/g, '\\![');
}

/**
 * A line that would be a heading shown as text: a `#` run standing as a word (an ATX heading, at the line start or
 * after a list or quote marker), and a trailing `===`/`---` run (a setext underline) get a backslash.
 */
function headingSafe(line: string): string {
  // A heading line of its own reads as a bold line (a summary's "## Goal").
  const atx = /^ {0,3}#{1,6}[ \t]+([^*#]*[^*#\s])[ \t#]*$/.exec(line);
  if (atx) return `**${atx[1]}**\n`;
  let out = line.replace(/(^|[\s>])(#{1,6})(?=\s|$)/g, '$1\\$2');
  const t = out.trimEnd();
  let k = t.length;
  while (k > 0 && (t.charCodeAt(k - 1) === 0x3d || t.charCodeAt(k - 1) === 0x2d)) k--;
  if (k < t.length && (k === 0 || /[\s>]/.test(t[k - 1]))) out = `${t.slice(0, k)}\\${t.slice(k)}`;
  return out;
}

/**
 * Text shown literally on a line the export starts (after `# `, `- Name: `, `**`): only what would be markup there is
 * escaped (emphasis, code, links, HTML, entities, tables, a heading's closing `#`); no line break.
 */
export function mdInline(text: string): string {
  return visibleControls(text)
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_[\]<>&|~]/g, (c) => `\\${c}`)
    .replace(/#(?=\s*$)/, '\\#');
}

/** Inline code showing `text` exactly (a backtick run longer than any in it), for ids, paths and names. */
export function mdCode(text: string): string {
  const shown = visibleControls(text).replace(/[\r\n]+/g, ' ');
  let longest = 0;
  for (let i = 0, run = 0; i < shown.length; i++) {
    run = shown.charCodeAt(i) === 0x60 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const ticks = '`'.repeat(longest + 1);
  const pad = shown.startsWith('`') || shown.endsWith('`') || /^ .* $/.test(shown) ? ' ' : '';
  return `${ticks}${pad}${shown}${pad}${ticks}`;
}
