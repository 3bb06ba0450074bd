// Export Branch (issue 8 item 11): Markdown and self-contained HTML of one branch, with hostile session text.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import MarkdownIt from 'markdown-it';
import { loadSession } from '../../../src/engine/session/loadSession';
import { exportBranch, mdFence, visibleControls } from '../../../src/engine/export/exportBranch';
import { mdBody } from '../../../src/engine/export/markdownText';
import { MD_TAGS } from '../../../src/engine/text/markdown';
import { hostileSession, loadPayloads } from '../../support/xss/hostileSession';
import { repoRoot } from '../../support/fixtures';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** Every element and attribute the exporter's template writes; anything else came from session text. */
const TEMPLATE_TAGS = new Set([
  'html',
  'head',
  'body',
  'meta',
  'title',
  'style',
  'h1',
  'h2',
  'h3',
  'p',
  'article',
  'section',
  'pre',
  'details',
  'summary',
  // Rendered Markdown (engine/export/markdownHtml.ts): the markdown tree's closed set, none of which loads or runs anything.
  ...MD_TAGS,
  'div',
  'h4',
  'ul',
  'li',
  'code',
]);
const TEMPLATE_ATTRS = new Set(['lang', 'charset', 'http-equiv', 'content', 'name', 'class', 'start']);

function elements(node: Node, out: Element[] = []): Element[] {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if ('tagName' in n) out.push(n);
    if ('childNodes' in n) for (const c of n.childNodes) stack.push(c);
    if ('content' in n && n.content) stack.push(n.content as Node);
  }
  return out;
}

function text(node: Node): string {
  let s = '';
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.nodeName === '#text') s += (n as DefaultTreeAdapterMap['textNode']).value;
    if ('childNodes' in n) for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push(n.childNodes[i]);
  }
  return s;
}

const ESCAPES = ['\u001b]52;c;cHduZWQ=\u0007', '\u001b[2J\u001b[H', '\u001b]0;pwned\u0007', 'evil\u202etxt.exe', '\u009b31m'];
const FENCE_BREAKER = 'before\n```\n# Injected heading\n<script>alert(1)</script>\n````\nafter';

async function hostileFile(): Promise<{ file: string; payloads: ReturnType<typeof loadPayloads> }> {
  const payloads = [
    ...loadPayloads('http://127.0.0.1:9'),
    ...ESCAPES.map((e, i) => ({ id: `escape-${i}`, payload: e, what: 'terminal escape' })),
    { id: 'fence', payload: FENCE_BREAKER, what: 'a message with a code fence' },
  ];
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-export-'));
  const session = hostileSession(payloads, { cwd: dir });
  const file = path.join(dir, 'hostile.jsonl');
  await fsp.writeFile(file, session.text);
  return { file, payloads };
}

describe('export branch', () => {
  it('HTML: a self-contained page whose elements and attributes all come from the template', async () => {
    const { file, payloads } = await hostileFile();
    const index = await loadSession(file);
    const html = await exportBranch(index, { format: 'html', title: payloads[0].payload });
    const doc = parse(html);
    const els = elements(doc);
    for (const e of els) {
      assert.ok(TEMPLATE_TAGS.has(e.tagName), `element <${e.tagName}> came from session text`);
      for (const a of e.attrs) assert.ok(TEMPLATE_ATTRS.has(a.name), `attribute ${a.name} on <${e.tagName}> came from session text`);
    }
    const csp = els.find((e) => e.tagName === 'meta' && e.attrs.some((a) => a.value === 'Content-Security-Policy'));
    assert.equal(csp?.attrs.find((a) => a.name === 'content')?.value, "default-src 'none'; style-src 'unsafe-inline'");
    assert.ok(!els.some((e) => e.tagName === 'script' || e.tagName === 'link' || e.tagName === 'img'));
    // Each payload is on the page as text, literally (control characters made visible).
    const shown = text(doc);
    for (const p of payloads) assert.ok(shown.includes(visibleControls(p.payload)), `${p.id} shown as text`);
    assert.doesNotMatch(html, /[\u001b\u0007\u009b\u202e]/, 'no raw control or bidi character in the page');
    // Classes are the template's role names and the rendered Markdown's own only.
    const roles =
      /^(meta|user|assistant|toolResult|compaction|branch_summary|error|bashExecution|custom|custom_message|model_change|thinking_level_change)$/;
    const markdown =
      /^(md|pins|pin|pin-head|files|tasks|task checked|task open|link-text|image-text|markdown-rest|align-(left|right|center))$/;
    for (const e of els) for (const a of e.attrs) if (a.name === 'class') assert.ok(roles.test(a.value) || markdown.test(a.value), a.value);
  });

  it('Markdown: messages read as Markdown, yet no HTML, image or heading comes from session text; code stays in its fence', async () => {
    const { file, payloads } = await hostileFile();
    const index = await loadSession(file);
    const md = await exportBranch(index, { format: 'md', title: 'Hostile # <b>title</b>' });
    assert.doesNotMatch(md, /[\u001b\u0007\u009b\u202e]/);
    const tokens = new MarkdownIt({ html: true }).parse(md, {});
    // Raw HTML would be an html_block / html_inline token even with html allowed: there is none.
    const inlineKids = tokens.flatMap((t) => t.children ?? []);
    assert.ok(![...tokens, ...inlineKids].some((t) => t.type === 'html_block' || t.type === 'html_inline'), 'no raw HTML in the Markdown');
    assert.ok(!inlineKids.some((t) => t.type === 'image'), 'no image from session text');
    // Headings are the template's: the title and "N. Role · …" per entry.
    const headings = tokens.filter((_t, i) => i > 0 && tokens[i - 1].type === 'heading_open').map((t) => t.content);
    assert.equal(headings[0], 'Hostile # \\<b\\>title\\</b\\>');
    for (const h of headings.slice(1)) assert.match(h, /^\d+\. /, h);
    // The tool result's fence holds the fence-breaking text whole; the messages' own fence is closed in their part.
    const fences = tokens.filter((t) => t.type === 'fence').map((t) => t.content.replace(/\n$/, ''));
    assert.ok(fences.includes(FENCE_BREAKER), 'the tool result with ``` is one fence');
    assert.ok(payloads.find((p) => p.id === 'fence'));
  });

  it('mdBody: Markdown kept, markup that escapes its place made text (1 MB lines in linear time)', () => {
    const md = new MarkdownIt({ html: true });
    const render = (t: string) => md.render(mdBody(t));
    assert.equal(render('**bold** and `a < b` & c'), '<p><strong>bold</strong> and <code>a &lt; b</code> &amp; c</p>\n');
    assert.doesNotMatch(render('<img src=x onerror=alert(1)> <b>x</b>'), /<img|<b>/);
    assert.match(render('&lt;b&gt; &#60;'), /&amp;lt;b&amp;gt; &amp;#60;/, 'entities shown as typed');
    assert.doesNotMatch(render('![pixel](http://canary/x.png)'), /<img/);
    assert.doesNotMatch(render('# Title\ntext\n===\n- # item\n> ## quoted'), /<h\d/);
    assert.match(render('## Goal\n- one'), /<strong>Goal<\/strong>/);
    // A fence left open is closed in its part: what follows the part is not code.
    assert.equal(mdBody('```js\nlet x = 1;'), '```js\nlet x = 1;\n```');
    for (const big of [
      '#'.repeat(1_000_000),
      `# ${' a'.repeat(500_000)} #b`,
      '`'.repeat(1_000_000),
      `<${'a'.repeat(1_000_000)}`,
      ' '.repeat(1_000_000) + '#',
    ]) {
      const t0 = Date.now();
      mdBody(big);
      assert.ok(Date.now() - t0 < 1500, `${Date.now() - t0} ms`);
    }
  });

  it('a summary exports with its pins as pins (Markdown and HTML) and its Markdown rendered in HTML', async () => {
    const index = await loadSession(path.join(repoRoot, 'test', 'fixtures', 'sessions', 'pinned-summary.jsonl'));
    const md = await exportBranch(index, { format: 'md' });
    assert.match(md, /^- 📌 mul-done · user message · entry a1b2c3d4$/m);
    assert.doesNotMatch(md, /<pinned|<\/pinned>|<read-files>/);
    const html = await exportBranch(index, { format: 'html' });
    assert.match(html, /<li class="pin"><p class="pin-head">📌 mul-done · user message · entry a1b2c3d4<\/p>/);
    assert.match(html, /Keep <strong>tiny-calc<\/strong> dependency-free/);
    assert.doesNotMatch(html, /&lt;pinned|<script/);
  });

  it('mdFence is longer than any backtick run in its text', () => {
    for (const t of ['', '`', '```', 'a````b', '```````']) {
      const f = mdFence(t);
      const tokens = new MarkdownIt().parse(f, {});
      assert.equal(tokens.length, 1);
      assert.equal(tokens[0].content, t === '' ? '\n' : `${t}\n`);
    }
  });

  it('exports another branch given a leaf id, and refuses an unknown one', async () => {
    const { file } = await hostileFile();
    const index = await loadSession(file);
    const lines = (await fsp.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: string; type: string; message?: { role: string } });
    // The abandoned branch's last entry: the entry before the branch summary.
    const bsIndex = lines.findIndex((l) => l.type === 'branch_summary');
    const abandonedLeaf = lines[bsIndex - 1].id!;
    const side = await exportBranch(index, { format: 'md', leafId: abandonedLeaf });
    const main = await exportBranch(index, { format: 'md' });
    assert.ok(!side.includes('Compaction summary') && main.includes('Compaction summary'));
    assert.ok(side.includes(`Leaf: \`${abandonedLeaf}\``));
    await assert.rejects(exportBranch(index, { format: 'md', leafId: 'nope' }), /entry nope is not in/);
  });

  it('the CLI: arbor export FILE --format html --out PATH, stdout by default, exit 2 on bad input', async function () {
    const { file } = await hostileFile();
    const cli = path.join(repoRoot, 'dist', 'cli.js');
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [cli, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const md = await run(['export', file]);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^# hostile\n/);
    const out = path.join(path.dirname(file), 'page.html');
    const html = await run(['export', file, '--format', 'html', '--out', out]);
    assert.equal(html.code, 0, html.stderr);
    assert.match(await fsp.readFile(out, 'utf8'), /^<!DOCTYPE html>/);
    assert.equal((await run(['export', file, '--format', 'pdf'])).code, 2);
    assert.equal((await run(['export', file, '--leaf', 'nope'])).code, 2);
    assert.equal((await run(['export', file, '--out', file])).code, 2);
  });
});
