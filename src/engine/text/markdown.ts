import MarkdownIt from 'markdown-it';

type Md = ReturnType<typeof MarkdownIt>;

/**
 * Markdown for the panel: markdown-it (CommonMark + tables and strikethrough,
 * raw HTML off) parses, and its token stream becomes a tree of plain data
 * (MdNode), which dom.ts turns into elements and text nodes. No HTML string
 * is ever produced. Raw HTML in the input stays text; links keep their text
 * and show the address as a tooltip (the panel opens nothing but the file
 * links the extension lists). Pure: no DOM, testable in node.
 */

/** Elements the tree may hold; anything else markdown-it emits becomes a span. */
export type MdTag =
  | 'p'
  | 'h1'
  | 'h2'
  | 'h3'
  | 'h4'
  | 'h5'
  | 'h6'
  | 'ul'
  | 'ol'
  | 'li'
  | 'blockquote'
  | 'pre'
  | 'code'
  | 'hr'
  | 'br'
  | 'em'
  | 'strong'
  | 's'
  | 'span'
  | 'table'
  | 'thead'
  | 'tbody'
  | 'tr'
  | 'th'
  | 'td';

export type MdNode = { t: 'text'; text: string } | { t: 'el'; tag: MdTag; attrs: Record<string, string>; children: MdNode[] };

/** Every tag the tree may hold (MdTag). */
export const MD_TAGS: ReadonlySet<string> = new Set<string>([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'code',
  'hr',
  'br',
  'em',
  'strong',
  's',
  'span',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
]);

type Token = ReturnType<Md['parse']>[number];

let parser: Md | undefined;

/**
 * Bounds on inline work (emphasis, links, code spans), so that no input
 * costs more than a linear pass with a small constant: markdown-it's inline
 * parse is linear but makes a token per delimiter, and on dense markup
 * (1 MB of `*a ` or `![[`) that took seconds. An inline run (a paragraph, a
 * heading, a table cell) longer than MAX_INLINE_CHARS is shown as its plain
 * source text; and once a document's inline runs have used MAX_MARKUP_CHARS
 * characters that can start markup (see markupChars), the runs after that
 * are shown as plain text too. An ordinary summary is far below both.
 */
export const MAX_INLINE_CHARS = 32 * 1024;
export const MAX_MARKUP_CHARS = 32 * 1024;

/**
 * Characters an inline rule may start at (emphasis, strikethrough, code, links, images, autolinks, escapes, entities,
 * breaks), counted up to just past `limit`.
 */
function markupChars(src: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    switch (src.charCodeAt(i)) {
      case 0x2a: // *
      case 0x5f: // _
      case 0x7e: // ~
      case 0x60: // `
      case 0x5b: // [
      case 0x5d: // ]
      case 0x21: // !
      case 0x3c: // <
      case 0x5c: // \
      case 0x26: // &
      case 0x0a: // line break
        if (++n > limit) return n;
    }
  }
  return n;
}

/** Core rule before markdown-it's inline parse: runs past the bounds become plain text tokens. */
function boundInlineWork(state: { tokens: Token[] }): void {
  let budget = MAX_MARKUP_CHARS;
  for (const tok of state.tokens) {
    if (tok.type !== 'inline') continue;
    const cost = tok.content.length > MAX_INLINE_CHARS ? Infinity : markupChars(tok.content, budget);
    if (cost <= budget) budget -= cost;
    else {
      tok.type = 'text';
      tok.children = [];
    }
  }
}

function md(): Md {
  if (parser) return parser;
  parser = new MarkdownIt('default', { html: false, linkify: false, typographer: false, breaks: false });
  // Only http(s) addresses count as links (shown as text with a tooltip); anything else stays literal text.
  parser.validateLink = (url: string) => /^https?:\/\//i.test(url.trim());
  parser.core.ruler.before('inline', 'arbor_bound_inline', boundInlineWork);
  return parser;
}

function text(s: string): MdNode {
  return { t: 'text', text: s };
}

function element(tag: string, attrs: Record<string, string> = {}, children: MdNode[] = []): Extract<MdNode, { t: 'el' }> {
  return { t: 'el', tag: (MD_TAGS.has(tag) ? tag : 'span') as MdTag, attrs, children };
}

/**
 * Markdown past MAX_MARKDOWN_CHARS characters or MAX_MARKDOWN_LINES lines
 * is shown as plain text. markdown-it's block parse is linear but costs
 * several tokens per line, and its tokens are slow to make (the 15.x build
 * sets each class field through a helper call): 1 MB of one-line blocks
 * (`- a`, `# a`, blank-line paragraphs: 350,000 blocks) took seconds, mostly
 * in the garbage collector. The document is cut after the line break that
 * reaches either limit; the rest follows as one preformatted text block. A
 * summary or a message part (at most 100,000 characters are sent) of
 * ordinary lines is below both.
 */
export const MAX_MARKDOWN_CHARS = 128 * 1024;
export const MAX_MARKDOWN_LINES = 8192;

/** Where a document too long to render whole is cut (see MAX_MARKDOWN_CHARS); its length when it is not. */
function markdownCut(src: string): number {
  // Just after the MAX_MARKDOWN_LINES-th line break (the end of the text when it has fewer).
  let end = 0;
  for (let lines = 0; lines < MAX_MARKDOWN_LINES && end < src.length; lines++) {
    const nl = src.indexOf('\n', end);
    end = nl < 0 ? src.length : nl + 1;
  }
  if (end <= MAX_MARKDOWN_CHARS) return end;
  // Too many characters first: after the last line break before the limit (at the limit when a line is that long).
  const nl = src.lastIndexOf('\n', MAX_MARKDOWN_CHARS - 1);
  return nl >= MAX_MARKDOWN_CHARS / 2 ? nl + 1 : MAX_MARKDOWN_CHARS;
}

/** The tree for one markdown document. */
export function parseMarkdown(src: string): MdNode[] {
  const cut = markdownCut(src);
  const nodes = fromTokens(md().parse(cut < src.length ? src.slice(0, cut) : src, {}));
  if (cut < src.length) nodes.push(element('pre', { class: 'markdown-rest' }, [element('code', {}, [text(src.slice(cut))])]));
  return nodes;
}

/** The tree for one line of inline markdown (no blocks). */
export function parseInline(src: string): MdNode[] {
  return fromTokens(md().parseInline(src, {}));
}

/** The text a tree shows (what textContent of its DOM would be). */
export function inlineText(nodes: readonly MdNode[]): string {
  let out = '';
  const stack: MdNode[] = [...nodes].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (n.t === 'text') out += n.text;
    else for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out;
}

/** Number of nodes in a tree (for the size tests). */
export function countNodes(nodes: readonly MdNode[]): number {
  let count = 0;
  const stack: MdNode[] = [...nodes];
  while (stack.length) {
    const n = stack.pop()!;
    count++;
    if (n.t === 'el') for (const c of n.children) stack.push(c);
  }
  return count;
}

function alignClass(tok: Token): Record<string, string> {
  const style = String(tok.attrGet('style') ?? '');
  const m = /^text-align:(left|right|center)$/.exec(style);
  return m ? { class: `align-${m[1]}` } : {};
}

/**
 * Token stream → tree, in one pass with an explicit stack (linear in the
 * number of tokens, whatever the nesting).
 */
function fromTokens(tokens: Token[]): MdNode[] {
  const root: MdNode[] = [];
  // null marks an opening token that makes no element (a tight list's hidden paragraph).
  const stack: (Extract<MdNode, { t: 'el' }> | null)[] = [];
  const target = (): MdNode[] => {
    for (let i = stack.length - 1; i >= 0; i--) {
      const s = stack[i];
      if (s) return s.children;
    }
    return root;
  };
  const pending: Token[][] = [tokens];
  const pos: number[] = [0];
  while (pending.length) {
    const list = pending[pending.length - 1];
    const i = pos[pos.length - 1]++;
    if (i >= list.length) {
      pending.pop();
      pos.pop();
      continue;
    }
    const tok = list[i];
    if (tok.nesting === 1) {
      let node: Extract<MdNode, { t: 'el' }> | null;
      switch (tok.type) {
        case 'paragraph_open':
          node = tok.hidden ? null : element('p');
          break;
        case 'link_open':
          node = element('span', { class: 'link-text', title: String(tok.attrGet('href') ?? '') });
          break;
        case 'ordered_list_open': {
          const start = tok.attrGet('start') === null ? undefined : String(tok.attrGet('start'));
          node = element('ol', start && start !== '1' ? { start } : {});
          break;
        }
        case 'th_open':
        case 'td_open':
          node = element(tok.tag, alignClass(tok));
          break;
        default:
          node = element(tok.tag);
      }
      if (node) target().push(node);
      stack.push(node);
      continue;
    }
    if (tok.nesting === -1) {
      const closed = stack.pop();
      if (closed?.tag === 'li') markTask(closed);
      if (
        closed &&
        (closed.tag === 'ul' || closed.tag === 'ol') &&
        closed.children.some((c) => c.t === 'el' && c.attrs.class?.startsWith('task'))
      )
        closed.attrs.class = 'tasks';
      continue;
    }
    switch (tok.type) {
      case 'inline':
        if (tok.children?.length) {
          pending.push(tok.children);
          pos.push(0);
        }
        break;
      case 'text':
      case 'html_inline':
      case 'html_block':
        if (tok.content) target().push(text(tok.content));
        break;
      case 'code_inline':
        target().push(element('code', {}, [text(tok.content)]));
        break;
      case 'softbreak':
        target().push(text('\n'));
        break;
      case 'hardbreak':
        target().push(element('br'));
        break;
      case 'hr':
        target().push(element('hr'));
        break;
      case 'fence':
      case 'code_block': {
        const lang = tok.info.trim().split(/\s/, 1)[0] ?? '';
        const code = element('code', lang ? { 'data-lang': lang } : {}, [text(tok.content.replace(/\n$/, ''))]);
        target().push(element('pre', {}, [code]));
        break;
      }
      case 'image':
        // Never loaded: the alternative text, with the address as a tooltip.
        target().push(element('span', { class: 'image-text', title: String(tok.attrGet('src') ?? '') }, [text(tok.content || 'image')]));
        break;
      default:
        if (tok.content) target().push(text(tok.content));
    }
  }
  return root;
}

const TASK = /^\[([ xX])\] /;

/** `- [x] done` / `- [ ] open`: the item gets a check mark and loses the brackets. */
function markTask(li: Extract<MdNode, { t: 'el' }>): void {
  let first = li.children[0];
  if (first?.t === 'el' && first.tag === 'p') first = first.children[0];
  const holder =
    li.children[0]?.t === 'el' && (li.children[0] as Extract<MdNode, { t: 'el' }>).tag === 'p'
      ? (li.children[0] as Extract<MdNode, { t: 'el' }>).children
      : li.children;
  if (!first || first.t !== 'text') return;
  const m = TASK.exec(first.text);
  if (!m) return;
  const checked = m[1] !== ' ';
  holder[0] = text(first.text.slice(m[0].length));
  li.attrs.class = checked ? 'task checked' : 'task open';
}
