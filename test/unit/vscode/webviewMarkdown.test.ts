// The summary panel's markdown parser (data only, no HTML) and its safety rules.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { inlineText, parseInline, parseMarkdown, type Block } from '../../../src/webview/markdown';
import { parseFromWebview } from '../../../src/webview/protocol';
import { repoRoot } from '../../support/fixtures';

describe('webview markdown', () => {
  it('parses the summary format: headings, task lists, numbered steps, decisions', () => {
    const blocks = parseMarkdown('## Goal\n- Ship it\n\n### Done\n- [x] Read `a.ts`\n- [ ] Write **b**\n\n## Next Steps\n1. One\n2. Two\n   - nested');
    assert.deepStrictEqual(blocks.map((b) => b.t), ['heading', 'list', 'heading', 'list', 'heading', 'list']);
    const done = blocks[3] as Extract<Block, { t: 'list' }>;
    assert.deepStrictEqual(done.items.map((i) => i.checked), [true, false]);
    assert.strictEqual(inlineText(done.items[0].content), 'Read a.ts');
    const steps = blocks[5] as Extract<Block, { t: 'list' }>;
    assert.strictEqual(steps.ordered, true);
    assert.strictEqual(steps.items[1].children[0].t, 'list');
  });

  it('keeps raw HTML as text and only links http(s)', () => {
    const inline = parseInline('<img src=x onerror="alert(1)"> [a](javascript:alert(1)) [b](https://example.com) **<b>x</b>**');
    const links = inline.filter((n) => n.t === 'link');
    assert.strictEqual(links.length, 1);
    assert.strictEqual((links[0] as { href: string }).href, 'https://example.com');
    assert.match(inlineText(inline), /<img src=x onerror="alert\(1\)">/);
    const blocks = parseMarkdown('<script>alert(1)</script>\n\n```html\n<b>code</b>\n```');
    assert.strictEqual(blocks[0].t, 'paragraph');
    assert.strictEqual(inlineText((blocks[0] as Extract<Block, { t: 'paragraph' }>).content), '<script>alert(1)</script>');
    assert.deepStrictEqual(blocks[1], { t: 'code', lang: 'html', text: '<b>code</b>' });
  });

  it('never assigns HTML in the webview code; the panel has a nonce CSP and no inline handlers', () => {
    const dir = path.join(repoRoot, 'src', 'webview');
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      assert.doesNotMatch(text, /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(/, f);
    }
    const panel = fs.readFileSync(path.join(repoRoot, 'src', 'vscode', 'summaryPanel.ts'), 'utf8');
    assert.match(panel, /default-src 'none'/);
    assert.match(panel, /script-src 'nonce-\$\{nonce\}'/);
    assert.doesNotMatch(panel, /\bon(click|load|error)=/i);
  });

  it('validates messages from the webview', () => {
    assert.deepStrictEqual(parseFromWebview({ type: 'apply', proposalId: 'p1', summary: 'x' }), { type: 'apply', proposalId: 'p1', summary: 'x' });
    assert.strictEqual(parseFromWebview({ type: 'apply', proposalId: 3 }), undefined);
    assert.strictEqual(parseFromWebview({ type: 'openFile' }), undefined);
    assert.strictEqual(parseFromWebview({ type: 'rm -rf' }), undefined);
    assert.strictEqual(parseFromWebview(null), undefined);
  });
});
