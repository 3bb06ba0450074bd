// Locates the code-server + Node 24 install made by scripts/vscode-test/install.sh.
import * as fs from 'fs';
import * as path from 'path';

export const INSTALL_DIR_ENV = 'ARBOR_VSCODE_TEST_DIR';
export const DEFAULT_INSTALL_DIR = '/opt/arbor-vscode-test';
const STAMP_FORMAT = '1';

export interface VscodeTestInstall {
  dir: string;
  nodeBin: string;
  nodeVersion: string;
  codeServerEntry: string;
  codeServerVersion: string;
  chromium: string;
}

export function installDir(): string {
  return process.env[INSTALL_DIR_ENV] || DEFAULT_INSTALL_DIR;
}

function parseStamp(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return fields;
}

/** Reads `<dir>/stamp`; throws an error that says how to install when anything is missing. */
export function readInstall(dir: string = installDir()): VscodeTestInstall {
  const stampPath = path.join(dir, 'stamp');
  const hint = `Run scripts/vscode-test/install.sh (it installs into ${dir}; set ${INSTALL_DIR_ENV} to use another folder).`;
  let text: string;
  try {
    text = fs.readFileSync(stampPath, 'utf8');
  } catch {
    throw new Error(`VS Code test tools are not installed: ${stampPath} not found. ${hint}`);
  }
  const f = parseStamp(text);
  if (f.format !== STAMP_FORMAT) {
    throw new Error(`${stampPath} has format ${f.format ?? '?'}, expected ${STAMP_FORMAT}. ${hint}`);
  }
  const install: VscodeTestInstall = {
    dir,
    nodeBin: path.resolve(dir, f.node_bin ?? ''),
    nodeVersion: f.node_version ?? '',
    codeServerEntry: path.resolve(dir, f.code_server_entry ?? ''),
    codeServerVersion: f.code_server_version ?? '',
    chromium: f.chromium || '/usr/bin/chromium',
  };
  for (const file of [install.nodeBin, install.codeServerEntry, install.chromium]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing (listed in ${stampPath}). ${hint}`);
  }
  return install;
}
