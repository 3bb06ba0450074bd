// The summary panel's markdown parser (data only, no HTML) and its safety rules.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { inlineText, parseInline, parseMarkdown, type MdNode } from '../../../src/webview/markdown';
import { parseFromWebview, type PanelKind } from '../../../src/webview/protocol';
import { repoRoot } from '../../support/fixtures';

describe('webview markdown', () => {
  const els = (nodes: MdNode[], tag: string): Extract<MdNode, { t: 'el' }>[] => {
    const out: Extract<MdNode, { t: 'el' }>[] = [];
    const stack = [...nodes];
    while (stack.length) {
      const n = stack.shift()!;
      if (n.t === 'el') {
        if (n.tag === tag) out.push(n);
        stack.push(...n.children);
      }
    }
    return out;
  };

  it('parses the summary format: headings, task lists, numbered steps, decisions', () => {
    const blocks = parseMarkdown(
      '## Goal\n- Ship it\n\n### Done\n- [x] Read `a.ts`\n- [ ] Write **b**\n\n## Next Steps\n1. One\n2. Two\n   - nested',
    );
    assert.deepStrictEqual(
      blocks.map((b) => (b.t === 'el' ? b.tag : 'text')),
      ['h2', 'ul', 'h3', 'ul', 'h2', 'ol'],
    );
    const done = blocks[3] as Extract<MdNode, { t: 'el' }>;
    assert.strictEqual(done.attrs.class, 'tasks');
    assert.deepStrictEqual(
      done.children.map((i) => (i.t === 'el' ? i.attrs.class : undefined)),
      ['task checked', 'task open'],
    );
    assert.strictEqual(inlineText([done.children[0]]), 'Read a.ts');
    const steps = blocks[5] as Extract<MdNode, { t: 'el' }>;
    assert.strictEqual(els([steps.children[1]], 'ul').length, 1, 'nested list');
  });

  it('keeps raw HTML as text and only links http(s)', () => {
    const inline = parseInline('<img src=x onerror="alert(1)"> [a](javascript:alert(1)) [b](https://example.com) **<b>x</b>**');
    const links = els(inline, 'span').filter((n) => n.attrs.class === 'link-text');
    assert.strictEqual(links.length, 1);
    assert.strictEqual(links[0].attrs.title, 'https://example.com');
    assert.match(inlineText(inline), /<img src=x onerror="alert\(1\)">/);
    assert.match(inlineText(inline), /\[a\]\(javascript:alert\(1\)\)/);
    const blocks = parseMarkdown('<script>alert(1)</script>\n\n```html\n<b>code</b>\n```');
    assert.strictEqual(blocks[0].t === 'el' && blocks[0].tag, 'p');
    assert.strictEqual(inlineText([blocks[0]]), '<script>alert(1)</script>');
    assert.deepStrictEqual(blocks[1], {
      t: 'el',
      tag: 'pre',
      attrs: {},
      children: [{ t: 'el', tag: 'code', attrs: { 'data-lang': 'html' }, children: [{ t: 'text', text: '<b>code</b>' }] }],
    });
  });

  it('only makes elements from a closed set of tags, with no attribute from the text but title, start, lang, class', () => {
    const payloads = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'xss', 'payloads.json'), 'utf8')) as {
      payloads: { payload: string }[];
    };
    const allowed = new Set([
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
    for (const { payload } of payloads.payloads) {
      const src = `# ${payload}\n\n- ${payload}\n\n| a | ${payload} |\n|---|---|\n| ${payload} | [x](${payload}) ![i](${payload}) |\n\n> ${payload}`;
      const stack = parseMarkdown(src);
      while (stack.length) {
        const n = stack.pop()!;
        if (n.t !== 'el') continue;
        assert.ok(allowed.has(n.tag), n.tag);
        for (const k of Object.keys(n.attrs)) assert.ok(['title', 'start', 'data-lang', 'class'].includes(k), k);
        for (const c of n.children) stack.push(c);
      }
    }
  });

  it('never assigns HTML in the webview code; the panel has a nonce CSP and no inline handlers', () => {
    const dir = path.join(repoRoot, 'src', 'webview');
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      assert.doesNotMatch(text, /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(/, f);
    }
    // Every panel's page comes from webviewPage.ts, which holds the CSP, through the one host.
    const page = fs.readFileSync(path.join(repoRoot, 'src', 'vscode', 'panels', 'webviewPage.ts'), 'utf8');
    assert.match(page, /default-src 'none'/);
    assert.match(page, /script-src 'nonce-\$\{nonce\}'/);
    assert.doesNotMatch(page, /\bon(click|load|error)=/i);
    const host = fs.readFileSync(path.join(repoRoot, 'src', 'vscode', 'panels', 'webviewHost.ts'), 'utf8');
    assert.match(host, /webviewPage\(\{/);
    assert.doesNotMatch(host, /\bon(click|load|error)=|<script/i);
    for (const file of fs.readdirSync(path.join(repoRoot, 'src', 'vscode'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('webviewHost.ts')) continue;
      const text = fs.readFileSync(path.join(repoRoot, 'src', 'vscode', file), 'utf8');
      assert.doesNotMatch(text, /createWebviewPanel|webviewPage\(\{/, `${file}: panels are made by the one host`);
    }
  });

  it('validates messages from the webview', () => {
    assert.deepStrictEqual(parseFromWebview({ type: 'apply', proposalId: 'p1', summary: 'x', extra: { deep: 1 } }, 'summary'), {
      type: 'apply',
      proposalId: 'p1',
      summary: 'x',
    });
    assert.strictEqual(parseFromWebview({ type: 'apply', proposalId: 3 }, 'summary'), undefined);
    assert.strictEqual(parseFromWebview({ type: 'apply', proposalId: 'p1', summary: ['x'] }, 'summary'), undefined);
    assert.strictEqual(parseFromWebview({ type: 'openFile' }, 'summary'), undefined);
    assert.strictEqual(parseFromWebview({ type: 'rm -rf' }, 'summary'), undefined);
    assert.strictEqual(parseFromWebview(null, 'summary'), undefined);
    assert.strictEqual(parseFromWebview('ready', 'entry'), undefined);
    assert.deepStrictEqual(parseFromWebview({ type: 'copy', what: 'id' }, 'entry'), { type: 'copy', what: 'id' });
    assert.strictEqual(parseFromWebview({ type: 'copy', what: 'file' }, 'entry'), undefined);
    assert.deepStrictEqual(parseFromWebview({ type: 'showEntry', entryId: 'e1' }, 'context'), { type: 'showEntry', entryId: 'e1' });
    assert.strictEqual(parseFromWebview({ type: 'showEntry', entryId: 'e'.repeat(201) }, 'context'), undefined);
  });

  it('a message counts only for the kind of panel that sends it', () => {
    const all = [
      { type: 'ready' },
      { type: 'apply', proposalId: 'p' },
      { type: 'discard', proposalId: 'p' },
      { type: 'openFile', path: '/x' },
      { type: 'reveal', file: '/f', entryId: 'e' },
      { type: 'compactAgain', file: '/f' },
      { type: 'putBack', proposalId: 'p' },
      { type: 'recheck', proposalId: 'p', summary: 's' },
      { type: 'copy', what: 'text' },
      { type: 'openAtLine' },
      { type: 'jump' },
      { type: 'showEntry', entryId: 'e' },
    ];
    const accepted = (kind: PanelKind) => all.filter((m) => parseFromWebview(m, kind)).map((m) => m.type);
    assert.deepStrictEqual(accepted('summary'), ['ready', 'apply', 'discard', 'openFile', 'reveal', 'compactAgain', 'putBack', 'recheck']);
    assert.deepStrictEqual(accepted('entry'), ['ready', 'copy', 'openAtLine', 'jump', 'showEntry']);
    assert.deepStrictEqual(accepted('context'), ['ready', 'showEntry']);
  });
});
