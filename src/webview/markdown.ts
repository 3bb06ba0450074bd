/**
 * A small markdown parser for summaries: it produces a tree of plain data
 * (no HTML strings), which the webview turns into DOM nodes with
 * textContent only. Raw HTML in the input is never interpreted: it stays text.
 * Covers what summaries use: headings, paragraphs, nested bullet/numbered
 * lists, task items (- [x] / - [ ]), fenced code, block quotes, rules, and
 * inline code, **bold**, *italic*, and links (http/https only).
 */

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'strong'; children: Inline[] }
  | { t: 'em'; children: Inline[] }
  | { t: 'link'; href: string; children: Inline[] };

export interface ListItem {
  /** true/false for a task item ([x] / [ ]), undefined otherwise. */
  checked: boolean | undefined;
  content: Inline[];
  children: Block[];
}

export type Block =
  | { t: 'heading'; level: number; content: Inline[] }
  | { t: 'paragraph'; content: Inline[] }
  | { t: 'list'; ordered: boolean; start: number; items: ListItem[] }
  | { t: 'code'; lang: string; text: string }
  | { t: 'quote'; children: Block[] }
  | { t: 'rule' };

const LIST_RE = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TASK_RE = /^\[([ xX])\]\s+(.*)$/;

function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === ' ') n++;
    else if (ch === '\t') n += 4;
    else break;
  }
  return n;
}

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  return parseBlocks(lines);
}

function parseBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ t: 'paragraph', content: parseInline(para.join(' ')) });
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    const trimmed = line.trim();
    if (!trimmed) {
      flush();
      i++;
      continue;
    }
    const fence = /^(`{3,}|~{3,})\s*([\w+-]*)\s*$/.exec(trimmed);
    if (fence) {
      flush();
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      blocks.push({ t: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(trimmed);
    if (heading && indentOf(line) < 4) {
      flush();
      blocks.push({ t: 'heading', level: heading[1].length, content: parseInline(heading[2]) });
      i++;
      continue;
    }
    if (/^([-*_])(\s*\1){2,}$/.test(trimmed)) {
      flush();
      blocks.push({ t: 'rule' });
      i++;
      continue;
    }
    if (trimmed.startsWith('>')) {
      flush();
      const body: string[] = [];
      while (i < lines.length && lines[i].trim().startsWith('>')) body.push(lines[i++].trim().replace(/^>\s?/, ''));
      blocks.push({ t: 'quote', children: parseBlocks(body) });
      continue;
    }
    if (LIST_RE.test(line)) {
      flush();
      const { block, next } = parseList(lines, i);
      blocks.push(block);
      i = next;
      continue;
    }
    para.push(trimmed);
    i++;
  }
  flush();
  return blocks;
}

function parseList(lines: string[], from: number): { block: Block; next: number } {
  const first = LIST_RE.exec(lines[from])!;
  const baseIndent = indentOf(first[1]);
  const ordered = /\d/.test(first[2]);
  const start = ordered ? parseInt(first[2], 10) : 1;
  const items: ListItem[] = [];
  let i = from;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      // A blank line ends the list unless the next line continues it.
      const nextLine = lines[i + 1];
      if (nextLine !== undefined && (LIST_RE.test(nextLine) ? indentOf(nextLine) >= baseIndent : indentOf(nextLine) > baseIndent) && nextLine.trim()) {
        i++;
        continue;
      }
      break;
    }
    const m = LIST_RE.exec(line);
    const indent = indentOf(line);
    if (m && indent === baseIndent) {
      if (/\d/.test(m[2]) !== ordered) break;
      let text = m[3];
      let checked: boolean | undefined;
      const task = TASK_RE.exec(text);
      if (task) {
        checked = task[1] !== ' ';
        text = task[2];
      }
      const contLines: string[] = [text];
      const childLines: string[] = [];
      i++;
      while (i < lines.length) {
        const l = lines[i];
        if (!l.trim()) {
          const nextLine = lines[i + 1];
          if (nextLine !== undefined && nextLine.trim() && indentOf(nextLine) > baseIndent) {
            childLines.push('');
            i++;
            continue;
          }
          break;
        }
        const ind = indentOf(l);
        if (ind <= baseIndent) break;
        if (childLines.length === 0 && !LIST_RE.test(l)) contLines.push(l.trim());
        else childLines.push(l.slice(Math.min(ind, baseIndent + 2)));
        i++;
      }
      items.push({ checked, content: parseInline(contLines.join(' ')), children: childLines.length ? parseBlocks(dedent(childLines)) : [] });
      continue;
    }
    if (indent < baseIndent || m) break;
    // A lazy continuation line of the previous item.
    const last = items[items.length - 1];
    if (!last) break;
    last.content.push({ t: 'text', text: ' ' }, ...parseInline(line.trim()));
    i++;
  }
  return { block: { t: 'list', ordered, start, items }, next: i };
}

function dedent(lines: string[]): string[] {
  let min = Infinity;
  for (const l of lines) if (l.trim()) min = Math.min(min, indentOf(l));
  if (!Number.isFinite(min) || min === 0) return lines;
  return lines.map((l) => l.slice(Math.min(min, indentOf(l))));
}

/** Inline markup. Unmatched markers stay as text. */
export function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const pushText = () => {
    if (text) out.push({ t: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === '\\' && i + 1 < src.length && /[\\`*_[\]()#+\-.!<>]/.test(src[i + 1])) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (ch === '`') {
      let ticks = 1;
      while (src[i + ticks] === '`') ticks++;
      const marker = '`'.repeat(ticks);
      const end = src.indexOf(marker, i + ticks);
      if (end > i) {
        pushText();
        out.push({ t: 'code', text: src.slice(i + ticks, end).trim() || src.slice(i + ticks, end) });
        i = end + ticks;
        continue;
      }
    }
    if ((ch === '*' || ch === '_') && src[i + 1] === ch) {
      const marker = ch + ch;
      const end = src.indexOf(marker, i + 2);
      if (end > i + 2) {
        pushText();
        out.push({ t: 'strong', children: parseInline(src.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if ((ch === '*' || ch === '_') && src[i + 1] !== ch && src[i + 1] !== ' ' && src[i + 1] !== undefined) {
      const prev = src[i - 1];
      const wordInside = ch === '_' && prev !== undefined && /\w/.test(prev);
      const end = findClosing(src, ch, i + 1);
      if (!wordInside && end > i + 1) {
        pushText();
        out.push({ t: 'em', children: parseInline(src.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (ch === '[') {
      const close = src.indexOf('](', i + 1);
      const endParen = close >= 0 ? src.indexOf(')', close + 2) : -1;
      if (close > i && endParen > close) {
        const href = src.slice(close + 2, endParen).trim();
        const label = src.slice(i + 1, close);
        pushText();
        if (/^https?:\/\//i.test(href)) out.push({ t: 'link', href, children: parseInline(label) });
        else out.push(...parseInline(label));
        i = endParen + 1;
        continue;
      }
    }
    text += ch;
    i++;
  }
  pushText();
  return out;
}

function findClosing(src: string, ch: string, from: number): number {
  for (let j = from; j < src.length; j++) {
    if (src[j] === '\\') {
      j++;
      continue;
    }
    if (src[j] === ch && src[j + 1] !== ch && src[j - 1] !== ' ') {
      if (ch === '_' && src[j + 1] !== undefined && /\w/.test(src[j + 1])) continue;
      return j;
    }
  }
  return -1;
}

/** Plain text of inline content (for titles and tests). */
export function inlineText(nodes: Inline[]): string {
  return nodes.map((n) => (n.t === 'text' || n.t === 'code' ? n.text : inlineText(n.children))).join('');
}
