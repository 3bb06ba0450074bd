import type { MdNode } from './markdown';

/**
 * DOM helpers. Every piece of session text goes in through textContent or
 * createTextNode; nothing here ever assigns HTML, and no element made from
 * session text navigates anywhere (no href but "#").
 */

type Attrs = Record<string, string | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) node.setAttribute(k, v);
  for (const c of children) {
    if (c === undefined || c === false) continue;
    node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return node;
}

const BLOCK_TAGS = new Set(['p', 'ul', 'ol', 'pre', 'blockquote', 'table', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * Builds the DOM for a markdown tree (markdown.ts) under `parent`: elements
 * from the tree's closed set of tags, text through text nodes. Headings move
 * down by `headingOffset` (a section's body sits under its own heading).
 */
export function renderMarkdown(nodes: readonly MdNode[], parent: HTMLElement, headingOffset = 0): void {
  const stack: { nodes: readonly MdNode[]; i: number; parent: HTMLElement }[] = [{ nodes, i: 0, parent }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.i >= top.nodes.length) {
      stack.pop();
      continue;
    }
    const n = top.nodes[top.i++];
    if (n.t === 'text') {
      top.parent.append(document.createTextNode(n.text));
      continue;
    }
    let tag: string = n.tag;
    if (/^h[1-6]$/.test(tag)) tag = `h${Math.min(6, Number(tag[1]) + headingOffset)}`;
    const node = el(tag as 'span', n.attrs);
    top.parent.append(node);
    if (n.tag === 'li' && n.attrs.class?.startsWith('task')) {
      const checked = n.attrs.class === 'task checked';
      node.setAttribute('role', 'checkbox');
      node.setAttribute('aria-checked', String(checked));
      node.append(el('span', { class: 'check', 'aria-hidden': 'true' }, checked ? '\u2713' : ''));
      let split = n.children.findIndex((c) => c.t === 'el' && BLOCK_TAGS.has(c.tag));
      if (split < 0) split = n.children.length;
      const body = el('span', { class: 'item-text' });
      node.append(body);
      stack.push({ nodes: n.children.slice(split), i: 0, parent: node });
      stack.push({ nodes: n.children.slice(0, split), i: 0, parent: body });
      continue;
    }
    stack.push({ nodes: n.children, i: 0, parent: node });
  }
}
