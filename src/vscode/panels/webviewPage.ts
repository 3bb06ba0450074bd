import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { PanelKind } from '../../webview/protocol';

export interface WebviewPageOptions {
  webview: vscode.Webview;
  extensionUri: vscode.Uri;
  /** The page's script, relative to the extension (dist/webview.js). */
  script: string;
  /** Style sheets, relative to the extension, in order. */
  styles: readonly string[];
  title: string;
  /** The kind of panel: the page script draws that kind's view. */
  kind: PanelKind;
}

/**
 * The HTML of an Arbor webview: one root element the script renders into.
 * Scripts run only with this page's nonce; nothing else loads from anywhere
 * but the extension's own files (no inline style, no remote source).
 */
export function webviewPage(options: WebviewPageOptions): string {
  const { webview, extensionUri } = options;
  const uri = (rel: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...rel.split('/'))).toString();
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  const links = options.styles.map((s) => `<link rel="stylesheet" href="${uri(s)}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${links}
<title>${options.title}</title>
</head>
<body>
<div id="root" data-kind="${options.kind}" aria-live="polite"></div>
<script nonce="${nonce}" src="${uri(options.script)}"></script>
</body>
</html>`;
}
