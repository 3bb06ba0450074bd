import type { FileHandle } from 'node:fs/promises';

/**
 * What a restore says when a file it wrote could not keep its owner: only
 * root may give a file to another user (and a group the user is not in), so
 * a file owned by someone else comes back owned by the user running Arbor.
 * Extended attributes are not copied: Node has no xattr interface, and
 * getfattr/setfattr (Debian's optional `attr` package) are not there by
 * default, so depending on them would keep xattrs on some machines only.
 * The README says so.
 */
export function ownerNote(was: { uid: number; gid: number }, now: { uid: number; gid: number }): string | undefined {
  const parts: string[] = [];
  if (was.uid !== now.uid) parts.push(`user ${was.uid} is now ${now.uid}`);
  if (was.gid !== now.gid) parts.push(`group ${was.gid} is now ${now.gid}`);
  return parts.length ? `owner not kept (${parts.join(', ')}): only root may give a file to another owner` : undefined;
}

/** Gives the new file the old one's owner; where the user may not (only root gives a file away), says so. */
export async function keepOwner(handle: FileHandle, owner: { uid: number; gid: number }): Promise<string | undefined> {
  const mine = await handle.stat();
  if (mine.uid === owner.uid && mine.gid === owner.gid) return undefined;
  try {
    await handle.chown(owner.uid, owner.gid);
    return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
  await handle.chown(mine.uid, owner.gid).catch(() => undefined); // the group alone, when it is one of the user's
  const now = await handle.stat();
  return ownerNote(owner, { uid: now.uid, gid: now.gid });
}
