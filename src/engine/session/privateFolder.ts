import { promises as fsp } from 'node:fs';

/**
 * A folder only this user may use (the bridge's files, the user's write locks), made 0700 if missing. A folder
 * that is a link, is owned by someone else or can be reached by others is
 * refused: nobody else may place or read anything there. Node built-ins only: the bridge bundles it.
 */
export async function ensurePrivateFolder(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await fsp.lstat(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (process.platform !== 'win32') {
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
    if ((st.mode & 0o077) !== 0) await fsp.chmod(dir, 0o700);
  }
}
