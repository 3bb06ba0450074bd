import type { Block, Inline } from './markdown';

/**
 * DOM helpers. Every piece of session text goes in through textContent or
 * createTextNode; nothing here ever assigns HTML, and no element made from
 * session text navigates anywhere (no href but "#").
 */

type Attrs = Record<string, string | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string | undefined | false)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) node.setAttribute(k, v);
  for (const c of children) {
    if (c === undefined || c === false) continue;
    node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return node;
}

export function renderInline(nodes: Inline[], parent: HTMLElement): void {
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        parent.append(document.createTextNode(n.text));
        break;
      case 'code':
        parent.append(el('code', {}, n.text));
        break;
      case 'strong': {
        const s = el('strong');
        renderInline(n.children, s);
        parent.append(s);
        break;
      }
      case 'em': {
        const e = el('em');
        renderInline(n.children, e);
        parent.append(e);
        break;
      }
      case 'link': {
        // The panel opens nothing but file links: a link in a summary shows its text, with the address as a tooltip.
        const span = el('span', { class: 'link-text', title: n.href });
        renderInline(n.children, span);
        parent.append(span);
        break;
      }
    }
  }
}

export function renderBlocks(blocks: Block[], parent: HTMLElement, headingOffset = 0): void {
  for (const b of blocks) {
    switch (b.t) {
      case 'heading': {
        const level = Math.min(6, b.level + headingOffset);
        const h = el(`h${level}` as 'h3');
        renderInline(b.content, h);
        parent.append(h);
        break;
      }
      case 'paragraph': {
        const p = el('p');
        renderInline(b.content, p);
        parent.append(p);
        break;
      }
      case 'list': {
        const list = b.ordered ? el('ol', b.start !== 1 ? { start: String(b.start) } : {}) : el('ul');
        if (b.items.some((it) => it.checked !== undefined)) list.classList.add('tasks');
        for (const item of b.items) {
          const li = el('li');
          if (item.checked !== undefined) {
            li.classList.add('task', item.checked ? 'checked' : 'open');
            li.append(el('span', { class: 'check', 'aria-hidden': 'true' }, item.checked ? '✓' : ''));
            li.setAttribute('aria-checked', String(item.checked));
            li.setAttribute('role', 'checkbox');
          }
          const body = el('span', { class: 'item-text' });
          renderInline(item.content, body);
          li.append(body);
          if (item.children.length) renderBlocks(item.children, li, headingOffset);
          list.append(li);
        }
        parent.append(list);
        break;
      }
      case 'code': {
        const pre = el('pre');
        pre.append(el('code', b.lang ? { 'data-lang': b.lang } : {}, b.text));
        parent.append(pre);
        break;
      }
      case 'quote': {
        const q = el('blockquote');
        renderBlocks(b.children, q, headingOffset);
        parent.append(q);
        break;
      }
      case 'rule':
        parent.append(el('hr'));
        break;
    }
  }
}
