// Hostile session content in a real browser: every payload of test/fixtures/xss/payloads.json sits in
// a compaction and a branch summary (text and file lists), user messages, tool calls and output,
// labels and the session name. The summary panel (and the tree) must show it as text: no payload
// script runs (arborXss is never called, no dialog, no title change), no request leaves for a
// payload URL or anywhere but the workbench server, the DOM holds no element or attribute made from
// a payload, clicking the payload links opens nothing, and the panel's CSP is nonce-only.
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import type { FrameLocator, Page, Request } from 'playwright-core';
import { runCommand, screenshot, showActivityView, webviewFrame } from '../support/vscode/browser';
import { hostileSession, loadPayloads, XSS_TITLE_PREFIX, type HostileSession, type XssPayload } from '../support/xss/hostileSession';
import { inlineText, parseInline } from '../../src/webview/markdown';
import { oneLine } from '../../src/engine/tree/oneLine';
import { e2e } from './context';
import { collapseAll, row } from './sessionsView';

// Functions passed to evaluate() run in the browser (this project compiles tests without the DOM lib).
declare const document: any;
declare const location: any;

/** Tags the panel itself makes; a payload turned into markup would add others. */
const PANEL_TAGS = new Set([
  'div',
  'header',
  'main',
  'section',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'span',
  'ul',
  'ol',
  'li',
  'a',
  'code',
  'pre',
  'strong',
  'em',
  'blockquote',
  'hr',
  'details',
  'summary',
  'button',
  'dl',
  'dt',
  'dd',
  'textarea',
]);
/** Workbench requests that are expected on a closed network and have nothing to do with the panel. */
const NOISE = [/^https?:\/\/([^/]+\.)?open-vsx\.org\//, /^https?:\/\/([^/]+\.)?(microsoft|visualstudio|vscode-cdn)\.(com|net)\//];

interface Watch {
  fired: string[];
  dialogs: string[];
  violations: string[];
  requests: { url: string; frame: string }[];
  canaryHits: string[];
}

/** Checks the rendered panel: structure, attributes, the one script, and the CSP. */
async function panelDom(panel: FrameLocator): Promise<{
  tags: string[];
  handlers: string[];
  hrefs: string[];
  styles: number;
  scripts: { nonce: boolean; src: string; text: string }[];
  csp: string;
  title: string;
}> {
  return panel.locator('body').evaluate(() => {
    const tags = new Set<string>();
    const handlers: string[] = [];
    const hrefs: string[] = [];
    let styles = 0;
    for (const el of Array.from(document.querySelectorAll('*')) as any[]) {
      if (el.closest('#root')) {
        tags.add(el.tagName.toLowerCase());
        if (el.hasAttribute('style')) styles++;
      }
      for (const a of Array.from(el.attributes) as any[]) if (/^on/i.test(a.name)) handlers.push(`${el.tagName}.${a.name}`);
      if (el.tagName === 'A') hrefs.push(el.getAttribute('href') ?? '');
    }
    const scripts = (Array.from(document.scripts) as any[]).map((s) => ({
      nonce: !!s.nonce || s.hasAttribute('nonce'),
      src: s.getAttribute('src') ?? '',
      text: String(s.textContent ?? ''),
    }));
    const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '';
    return { tags: [...tags], handlers, hrefs, styles, scripts, csp, title: document.title };
  });
}

describe('Hostile session content (XSS) in the summary panel', function () {
  this.timeout(180_000);
  let page: Page;
  let canary: http.Server;
  let canaryUrl: string;
  let payloads: XssPayload[];
  let session: HostileSession;
  let file: string;
  const watch: Watch = { fired: [], dialogs: [], violations: [], requests: [], canaryHits: [] };
  let serverOrigin: string;
  const onRequest = (r: Request) => watch.requests.push({ url: r.url(), frame: r.serviceWorker() ? 'service worker' : r.frame().url() });
  const onDialog = (d: import('playwright-core').Dialog) => {
    watch.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => undefined);
  };

  before(async () => {
    page = e2e.page;
    serverOrigin = new URL(e2e.serverUrl).origin;
    canary = http.createServer((req, res) => {
      watch.canaryHits.push(String(req.url));
      res.end('');
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    canaryUrl = `http://127.0.0.1:${(canary.address() as { port: number }).port}/xss`;
    payloads = loadPayloads(canaryUrl);
    assert.ok(payloads.length >= 20, `${payloads.length} payloads`);
    // Any payload that runs reports here; exposed in every frame, present and future.
    await page.exposeFunction('arborXss', (id: unknown) => void watch.fired.push(String(id)));
    await page.exposeFunction('arborCspViolation', (what: unknown) => void watch.violations.push(String(what)));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e: any) => {
        const report = (globalThis as unknown as { arborCspViolation?: (s: string) => void }).arborCspViolation;
        report?.(`${location.pathname} ${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
      });
    });
    page.context().on('request', onRequest);
    page.on('dialog', onDialog);

    session = hostileSession(payloads, { cwd: e2e.workspacePath });
    const dir = path.join(e2e.workspacePath, '.pi', 'sessions');
    file = path.join(dir, '2026-11-30T09-00-00-000Z_0a550000-0000-7000-8000-0000000000x5.jsonl');
    fs.writeFileSync(file, session.text);
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, old, old);
  });

  after(async () => {
    page.context().off('request', onRequest);
    page.off('dialog', onDialog);
    canary.close();
    canary.closeAllConnections();
  });

  afterEach(async () => {
    // The payloads are tried in every test: nothing may have run or left, whatever the test checked.
    assert.deepStrictEqual(watch.fired, [], `payload scripts ran: ${watch.fired.join(', ')}`);
    assert.deepStrictEqual(watch.dialogs, [], `dialogs: ${watch.dialogs.join(', ')}`);
    assert.deepStrictEqual(watch.canaryHits, [], `requests reached the canary: ${watch.canaryHits.join(', ')}`);
    const leaked = watch.requests.filter(
      (r) =>
        !r.url.startsWith(`${serverOrigin}/`) &&
        !r.url.startsWith('data:') &&
        !r.url.startsWith('blob:') &&
        !NOISE.some((re) => re.test(r.url)),
    );
    assert.deepStrictEqual(leaked, [], 'requests to anywhere but the workbench server');
    const payloadUrls = watch.requests.filter((r) => r.url.includes(canaryUrl) || /attacker\.invalid|arborXss|\/xss\//.test(r.url));
    assert.deepStrictEqual(payloadUrls, [], 'requests for payload URLs');
    assert.deepStrictEqual(watch.violations, [], 'CSP violations (something tried to load or run)');
    assert.ok(!(await page.title()).includes('XSS'), await page.title());
  });

  /** Shows the Sessions view (clicking the activity bar icon of a view already shown would hide it). */
  async function showSessions(): Promise<void> {
    await showActivityView(page, 'Arbor');
    await row(page, XSS_TITLE_PREFIX).waitFor({ timeout: 30_000 });
  }

  async function openView(kind: 'compaction' | 'branch'): Promise<FrameLocator> {
    // A fresh panel each time: a new webview document (the init script above watches it from the start).
    await runCommand(page, 'View: Close All Editors');
    await showSessions();
    await collapseAll(page);
    const sessionRow = row(page, XSS_TITLE_PREFIX);
    await sessionRow.waitFor({ timeout: 30_000 });
    await sessionRow.click();
    if (kind === 'compaction') {
      await runCommand(page, 'Arbor: Show Summary');
    } else {
      // The row's inline Show Summary action (a click on the row itself opens the entry panel).
      const summaryRow = row(page, 'Branch summary');
      await summaryRow.waitFor({ timeout: 15_000 });
      await summaryRow.hover();
      await summaryRow.locator('.action-label[aria-label^="Show Summary"]').click();
    }
    const panel = webviewFrame(page);
    const id = kind === 'compaction' ? session.compactionId : session.branchSummaryId;
    await panel.locator('.meta', { hasText: `entry ${id}` }).waitFor({ timeout: 30_000 });
    return panel;
  }

  /** Every payload shown as text, in every place the view shows it. */
  async function assertLiteral(panel: FrameLocator, kind: 'compaction' | 'branch'): Promise<void> {
    const critical = (await panel.locator('section[data-section="criticalContext"] li').allTextContents()).map((t) => t.trim());
    for (const p of payloads) {
      const expected = inlineText(parseInline(session.bullet(p)));
      assert.ok(
        critical.includes(expected),
        `${p.id} (${p.what}) in the summary as text: ${JSON.stringify(expected)}\n${critical.join('\n')}`,
      );
    }
    const read = await panel.locator('#read-files a.file-link').allTextContents();
    const modified = await panel.locator('#modified-files a.file-link').allTextContents();
    assert.deepStrictEqual(
      read,
      payloads.map((p) => p.payload),
      'read files, literally',
    );
    assert.deepStrictEqual(
      modified,
      [...payloads].reverse().map((p) => p.payload),
      'modified files, literally',
    );
    const replaced = await panel.locator('#replaced .entry-text').allTextContents();
    for (const p of payloads) {
      const preview = oneLine(p.payload, 120);
      assert.ok(replaced.filter((t) => t === preview).length >= 2, `${p.id}: the user message and the tool output as text`);
    }
    if (kind === 'compaction') {
      const labels = (await panel.locator('#replaced .entry-label').allTextContents()).map((t) => t.trim());
      for (const p of payloads) assert.ok(labels.includes(`#${oneLine(p.payload, 120)}`), `${p.id}: the label as text`);
    }
    const meta = (await panel.locator('.meta').first().textContent()) ?? '';
    assert.ok(meta.includes(oneLine(session.title, 80)), `the session name as text: ${meta}`);
  }

  async function assertInert(panel: FrameLocator, kind: string): Promise<void> {
    const dom = await panelDom(panel);
    const foreign = dom.tags.filter((t) => !PANEL_TAGS.has(t));
    assert.deepStrictEqual(foreign, [], `${kind}: elements made from payloads`);
    assert.deepStrictEqual(dom.handlers, [], `${kind}: inline event handlers`);
    assert.deepStrictEqual([...new Set(dom.hrefs)], ['#'], `${kind}: links that go somewhere`);
    assert.strictEqual(dom.styles, 0, `${kind}: style attributes`);
    // Scripts: the panel's own (by nonce), and the one VS Code's webview host puts in every webview (acquireVsCodeApi).
    const ours = dom.scripts.filter((x) => x.src);
    const inline = dom.scripts.filter((x) => !x.src);
    assert.strictEqual(ours.length, 1, `${kind}: scripts ${JSON.stringify(ours)}`);
    assert.ok(ours[0].nonce && /\/dist\/webview\.js$/.test(ours[0].src), JSON.stringify(ours));
    assert.ok(
      inline.length <= 1 && inline.every((x) => x.text.includes('acquireVsCodeApi') && !x.text.includes('arborXss')),
      `${kind}: inline scripts: ${inline.map((x) => x.text.slice(0, 120)).join(' | ')}`,
    );
    assert.ok(!dom.title.includes('XSS'), dom.title);
    // The CSP: default none, scripts by nonce only, nothing inline or evaluated.
    const csp = dom.csp;
    assert.match(csp, /default-src 'none'/, csp);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'/, csp);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|wasm-unsafe-eval/, csp);
    assert.doesNotMatch(csp, /(^|[\s;])(\*|https?:|data:|blob:)(?=[\s;]|$)/, `${csp}: no wildcard or whole-scheme source`);
    const scriptSrc = /script-src ([^;]*)/.exec(csp)![1].trim().split(/\s+/);
    assert.deepStrictEqual(scriptSrc.length, 1, `script-src allows only the nonce: ${scriptSrc.join(' ')}`);
  }

  it('the compaction summary shows every payload as text; nothing runs, loads or leaves', async () => {
    const panel = await openView('compaction');
    await panel.locator('#replaced > summary').click(); // open the list of replaced entries
    await assertLiteral(panel, 'compaction');
    await assertInert(panel, 'compaction');
    await screenshot(page, 'xss-01-compaction');
  });

  it('the branch summary shows every payload as text; nothing runs, loads or leaves', async () => {
    const panel = await openView('branch');
    await panel.locator('#replaced > summary').click();
    await assertLiteral(panel, 'branch');
    await assertInert(panel, 'branch');
    await screenshot(page, 'xss-02-branch-summary');
  });

  it('clicking the payload links opens nothing and runs nothing', async () => {
    const panel = await openView('compaction');
    const frameUrl = await panel.locator('body').evaluate(() => location.href);
    const tabsBefore = await page.locator('.tabs-container .tab').allTextContents();
    for (const id of ['js-scheme-bare', 'command-bare', 'file-url', 'a-javascript', 'img-onerror', 'md-js-link']) {
      const p = payloads.find((x) => x.id === id)!;
      await panel.locator('#read-files a.file-link').filter({ hasText: p.payload }).first().click();
    }
    for (const t of await panel.locator('.link-text').all()) await t.click();
    await page.waitForTimeout(1500);
    assert.strictEqual(await panel.locator('body').evaluate(() => location.href), frameUrl, 'the panel did not navigate');
    const tabsAfter = await page.locator('.tabs-container .tab').allTextContents();
    assert.deepStrictEqual(tabsAfter, tabsBefore, 'no editor opened');
    await screenshot(page, 'xss-03-after-clicks');
    await page.keyboard.press('Escape');
  });

  it('the Sessions view shows the payloads as text too', async () => {
    await runCommand(page, 'View: Close All Editors');
    await showSessions();
    const sessionRow = row(page, XSS_TITLE_PREFIX);
    await sessionRow.waitFor();
    const label = (await sessionRow.textContent()) ?? '';
    assert.ok(label.includes(oneLine(session.title, 80).slice(0, 60)), label);
    const injected = await page.evaluate(() => ({
      handlers: document.querySelectorAll('[onerror],[onload],[ontoggle],[onclick]').length,
      images: (Array.from(document.querySelectorAll('img')) as any[]).filter((i) => /^x$|xss/.test(i.getAttribute('src') ?? '')).length,
    }));
    assert.deepStrictEqual(injected, { handlers: 0, images: 0 });
    await screenshot(page, 'xss-04-tree');
  });
});
