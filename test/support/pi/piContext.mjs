// Dev-only oracle: opens a session file with the real Pi (0.73.1 from
// node_modules) and prints the context Pi would send: its leaf, and each
// message reduced to role + text, as JSON. Usage: node piContext.mjs FILE
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
const root = process.env.PI_PACKAGE_DIR ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../node_modules/@mariozechner/pi-coding-agent');
const { SessionManager } = await import(pathToFileURL(path.join(root, 'dist/core/session-manager.js')).href);
const sm = SessionManager.open(file, path.dirname(file));
const ctx = sm.buildSessionContext();
const text = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => (b.type === 'text' ? b.text : b.type === 'toolCall' ? `${b.name}:${JSON.stringify(b.arguments)}` : b.type === 'thinking' ? `~${b.thinking}` : `[${b.type}]`)).join('|') : '');
const messages = ctx.messages.map((m) => ({
  role: m.role,
  text: m.role === 'compactionSummary' || m.role === 'branchSummary' ? m.summary : m.role === 'bashExecution' ? `${m.command}\n${m.output}` : text(m.content),
}));
process.stdout.write(JSON.stringify({ leafId: sm.getLeafId(), messages, model: ctx.model, thinkingLevel: ctx.thinkingLevel }));
