/**
 * The main job's VS Code part: starts a real VS Code (code-server, bound to
 * 127.0.0.1) with the packaged Arbor .vsix installed and a copy of the sample
 * workspace holding Pi sessions, prints the URL to open, and serves until
 * Ctrl-C. Usage: node out/scripts/serveVscode.js [VSIX] [--port N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCodeServer } from '../test/support/vscode/codeServer';
import { FIXTURE_USER_SETTINGS } from '../test/support/vscode/userSettings';
import { writeDemoSession } from './demoSession';

async function main(): Promise<void> {
  const repo = path.resolve(__dirname, '..', '..');
  const args = process.argv.slice(2);
  const portAt = args.indexOf('--port');
  const port = portAt >= 0 ? Number(args[portAt + 1]) : Number(process.env.ARBOR_DEMO_PORT || 8765);
  const vsix = path.resolve(args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--port') ?? path.join(repo, 'arbor.vsix'));
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run npm run package first`);
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-demo-workspace-'));
  // The demo leaves no temporary folder behind: code-server's own go with server.stop(), the workspace copy at exit.
  process.once('exit', () => fs.rmSync(workspace, { recursive: true, force: true }));
  fs.cpSync(path.join(repo, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  // The fixture workspace counts tokens as Pi does (chars, for the tests' parity); the demo shows the default (tokenizer).
  const settingsFile = path.join(workspace, '.vscode', 'settings.json');
  const { 'arbor.tokenEstimator': _testsOnly, ...settings } = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
  // One session works in this workspace itself (its files as the session left them): Restore Files has something to do.
  const demo = await writeDemoSession(workspace);
  process.stdout.write(`demo session in this workspace: ${demo.file} (its files on disk: ${demo.files.join(', ')})\n`);
  const controller = new AbortController();
  // The sample workspace keeps its sessions in .pi/sessions: a folder to read is a user (machine) setting,
  // which a workspace's own settings cannot choose, so the demo's VS Code gets it as a user setting.
  const server = await startCodeServer({
    workspaceFolder: workspace,
    installVsix: vsix,
    port,
    signal: controller.signal,
    startTimeoutMs: 60000,
    userSettings: FIXTURE_USER_SETTINGS,
  });
  process.stdout.write(
    [
      '',
      `VS Code (code-server) with Arbor installed is running. Open:`,
      ``,
      `    http://127.0.0.1:${server.port}/?folder=${encodeURIComponent(workspace)}`,
      ``,
      `Workspace (a copy of test/fixtures/workspace, with seven Pi sessions in .pi/sessions): ${workspace}`,
      `The newest session's working directory is this workspace: Compact, Jump Here, Show File Changes and`,
      `Restore Files to This Point (on an entry before its edits) work on real files there.`,
      `Each session's row says whether Compact can do something now (else why, and Compact offers to keep less).`,
      `Click the Arbor icon in the activity bar. Ctrl-C stops the server and removes this workspace copy.`,
      '',
    ].join('\n'),
  );
  const stop = () => void server.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await server.exited;
  process.stdout.write(`code-server exited (${code})\n`);
}

main().catch((err) => {
  process.stderr.write(`serveVscode: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
