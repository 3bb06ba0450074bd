import { parseMarkdown, type MdNode } from '../text/markdown';
import { escapeHtml, visibleControls } from './controls';

/**
 * Markdown as HTML for the HTML export: the panels' markdown tree (engine/text/markdown.ts: markdown-it with raw
 * HTML off, its output a closed set of tags) written out with every text and attribute escaped. No element comes
 * from the session: links are their text, images their alternative text, raw HTML is text. Headings move down by
 * `headingOffset` (a message's own headings sit under the export's). Iterative: any nesting depth.
 */
export function markdownHtml(src: string, headingOffset = 0): string {
  const nodes = parseMarkdown(visibleControls(src));
  let out = '';
  const stack: ({ node: MdNode } | { close: string })[] = nodes.map((node) => ({ node })).reverse();
  while (stack.length) {
    const item = stack.pop()!;
    if ('close' in item) {
      out += item.close;
      continue;
    }
    const n = item.node;
    if (n.t === 'text') {
      out += escapeHtml(n.text);
      continue;
    }
    const tag = /^h[1-6]$/.test(n.tag) ? `h${Math.min(6, Number(n.tag[1]) + headingOffset)}` : n.tag;
    out += `<${tag}${attributes(n.attrs)}>`;
    if (tag === 'hr' || tag === 'br') continue;
    stack.push({ close: `</${tag}>` });
    for (let i = n.children.length - 1; i >= 0; i--) stack.push({ node: n.children[i] });
  }
  return out;
}

/** The classes the markdown tree gives (task items, link and image text, table alignment). */
const CLASSES = /^(?:task checked|task open|tasks|link-text|image-text|markdown-rest|align-(?:left|right|center))$/;

/** Only a known class and an ordered list's start number: no address, language or title from the session. */
function attributes(attrs: Record<string, string>): string {
  let out = '';
  if (attrs.class && CLASSES.test(attrs.class)) out += ` class="${attrs.class}"`;
  if (attrs.start && /^\d{1,9}$/.test(attrs.start)) out += ` start="${attrs.start}"`;
  return out;
}
