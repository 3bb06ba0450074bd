// Temp folders and paths shared by the VS Code test helpers.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Best effort: a process that is still exiting may write into the folder while it goes. */
export function removeDir(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (err) {
    console.warn(`could not remove ${dir}: ${(err as Error).message}`);
  }
}

/** XDG dirs under `root`, so code-server and Chromium leave $HOME alone. */
export function xdgEnv(root: string): Record<string, string> {
  const env = {
    XDG_DATA_HOME: path.join(root, 'xdg-data'),
    XDG_CONFIG_HOME: path.join(root, 'xdg-config'),
    XDG_CACHE_HOME: path.join(root, 'xdg-cache'),
  };
  for (const dir of Object.values(env)) fs.mkdirSync(dir, { recursive: true });
  return env;
}

/** The nearest folder above this file's folder that holds a package.json (the repo root). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

/** `$ARBOR_TEST_ARTIFACTS` or `<repo>/test-artifacts`. */
export function artifactsDir(): string {
  return process.env.ARBOR_TEST_ARTIFACTS || path.join(repoRoot(), 'test-artifacts');
}

/** A temp copy of `fixture` when that folder exists, else an empty temp folder. */
export function tempWorkspace(fixture?: string): { folder: string; dispose(): void } {
  const folder = makeTempDir('arbor-workspace-');
  if (fixture && fs.existsSync(fixture)) fs.cpSync(fixture, folder, { recursive: true });
  return { folder, dispose: () => removeDir(folder) };
}

/**
 * A new `<artifacts>/<kind>/<time>-<pid>` folder for one run's logs; only the newest `keep` runs
 * of that kind are kept, so concurrent runs never clear each other's logs.
 */
export function runLogDir(kind: string, keep = 5): string {
  const parent = path.join(artifactsDir(), kind);
  fs.mkdirSync(parent, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const dir = path.join(parent, `${stamp}-${process.pid}`);
  fs.mkdirSync(dir);
  const runs = fs
    .readdirSync(parent)
    .filter((d) => /^\d{8}T\d{6}-\d+$/.test(d))
    .sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - keep))) removeDir(path.join(parent, old));
  return dir;
}
