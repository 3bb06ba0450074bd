import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Every regular file under `dir` (relative path → UTF-8 text), for comparing a project before and after. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    for (const e of await fsp.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) out.set(r, await fsp.readFile(path.join(dir, r), 'utf8'));
    }
  };
  await walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Temporary files a restore may have left (it must leave none). */
export async function leftoverTemps(dir: string): Promise<string[]> {
  return [...(await snapshot(dir)).keys()].filter((p) => /\.arbor-\d+-[0-9a-f]+\.tmp$/.test(p));
}

/** A maker of temporary folders, each removed after the test that made it (call inside a describe). */
export function tempDirsPerTest(): (prefix: string) => Promise<string> {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
  });
  return async (prefix) => {
    const d = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
