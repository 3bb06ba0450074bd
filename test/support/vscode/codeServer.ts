// Starts code-server (VS Code in the browser) on 127.0.0.1 with fresh, throw-away state.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as path from 'path';
import { promisify } from 'util';
import { readInstall } from './installation';
import { spawnGroup } from './processGroup';
import { makeTempDir, removeDir, xdgEnv } from './sandbox';

export interface CodeServerOptions {
  /** Folder opened in the workbench. */
  workspaceFolder: string;
  /** Loaded as "[Extension Development Host]" through the URL payload (no install). */
  extensionDevelopmentPath?: string;
  /** A .vsix installed into the fresh extensions dir before start. */
  installVsix?: string;
  /**
   * Extension folders (package.json and code) copied into the fresh extensions dir before start: VS Code scans a
   * dir that has no extensions.json yet and loads them (a test language-model provider, for one).
   */
  extensions?: string[];
  /** Added to the server's environment; the extension host inherits it. */
  env?: Record<string, string>;
  /** Merged over the default user settings. */
  userSettings?: object;
  /** Where code-server.log goes (default: the run's temp dir, removed on stop). */
  logDir?: string;
  /** Aborting stops the server. */
  signal?: AbortSignal;
  /** Milliseconds to wait for /healthz (default 30000). */
  startTimeoutMs?: number;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
}

export interface CodeServer {
  port: number;
  /** Workbench URL: opens workspaceFolder, with extensionDevelopmentPath in the payload if given. */
  url: string;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  /** Settles with the exit code when the server process ends. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export interface WorkbenchUrlOptions {
  port: number;
  folder: string;
  extensionDevelopmentPath?: string;
  extensionTestsPath?: string;
}

/** Set in code-server's environment (and so the extension host's): its user data dir. */
export const USER_DATA_DIR_ENV = 'ARBOR_TEST_USER_DATA_DIR';

const DEFAULT_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.startupEditor': 'none',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

/** Payload paths only count when the server runs with enable-smoke-test-driver (startCodeServer does). */
export function workbenchUrl(o: WorkbenchUrlOptions): string {
  const authority = `127.0.0.1:${o.port}`;
  const remote = (p: string) => `vscode-remote://${authority}${path.resolve(p).split('/').map(encodeURIComponent).join('/')}`;
  const payload: [string, string][] = [];
  if (o.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(o.extensionDevelopmentPath)]);
  if (o.extensionTestsPath) payload.push(['extensionTestsPath', remote(o.extensionTestsPath)]);
  let url = `http://${authority}/?folder=${encodeURIComponent(path.resolve(o.folder))}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Copies the workbench/extension-host logs (window.log, exthost*.log, ...) next to code-server.log. */
function keepVscodeLogs(userDataDir: string, logDir: string): void {
  const logs = path.join(userDataDir, 'logs');
  try {
    if (fs.existsSync(logs)) fs.cpSync(logs, path.join(logDir, 'vscode-logs'), { recursive: true });
  } catch {
    /* best effort */
  }
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  options.signal?.throwIfAborted();
  const install = readInstall();
  const runDir = makeTempDir('arbor-code-server-');
  const userDataDir = path.join(runDir, 'user-data');
  const extensionsDir = path.join(runDir, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir);
  for (const dir of options.extensions ?? []) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      publisher: string;
      name: string;
      version: string;
    };
    fs.cpSync(dir, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), { recursive: true });
  }
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...DEFAULT_SETTINGS, ...options.userSettings }, null, 2),
  );
  // The workbench is a remote window: machine-scoped settings are read from the server's machine settings, not User/.
  fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify({ ...options.userSettings }, null, 2));
  // Without --config code-server creates ~/.config/code-server/config.yaml with password auth.
  const configFile = path.join(runDir, 'config.yaml');
  fs.writeFileSync(configFile, '');
  // USER_DATA_DIR_ENV: tests in the extension host look at the settings and logs VS Code wrote there.
  const env = { ...process.env, ...xdgEnv(runDir), [USER_DATA_DIR_ENV]: userDataDir, ...options.env };
  const common = ['--config', configFile, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

  try {
    if (options.installVsix) {
      await promisify(execFile)(
        install.nodeBin,
        [install.codeServerEntry, ...common, '--install-extension', path.resolve(options.installVsix)],
        { env },
      );
    }
  } catch (err) {
    removeDir(runDir);
    throw new Error(`installing ${options.installVsix} into code-server failed: ${(err as Error).message}`);
  }

  const logDir = options.logDir ?? runDir;
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'code-server.log');
  const port = options.port ?? (await freePort());
  const server = spawnGroup(
    install.nodeBin,
    [
      install.codeServerEntry,
      ...common,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      // Needed for the URL payload (extensionDevelopmentPath / extensionTestsPath) to be honoured.
      '--vscode-option',
      'enable-smoke-test-driver',
      path.resolve(options.workspaceFolder),
    ],
    { env, logFile, onAbandon: () => removeDir(runDir) },
  );
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      options.signal?.removeEventListener('abort', onAbort);
      await server.stop();
      if (options.logDir) keepVscodeLogs(userDataDir, options.logDir);
      removeDir(runDir);
    })());
  const onAbort = () => void stop();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await healthy(port))) {
    const problem = server.hasExited()
      ? `code-server exited (code ${await server.exited}) before answering /healthz`
      : options.signal?.aborted
        ? 'aborted'
        : Date.now() > deadline
          ? `code-server did not answer /healthz on port ${port} in time`
          : undefined;
    if (problem) {
      const log = tail(logFile);
      await stop();
      throw new Error(`${problem}. Last lines of ${logFile}:\n${log}`);
    }
    await sleep(100);
  }

  return {
    port,
    url: workbenchUrl({
      port,
      folder: options.workspaceFolder,
      extensionDevelopmentPath: options.extensionDevelopmentPath,
    }),
    userDataDir,
    extensionsDir,
    logFile,
    exited: server.exited,
    stop,
  };
}
