import { openLineFile, type OpenLineFile } from '../../src/engine/session/lineFile';

/** A counting wrapper around the production line opener (the port tests use instead of a counter in the index). */
export function countingOpener(): { open: OpenLineFile; opens: number; reads: number; bytes: number } {
  const counts = { opens: 0, reads: 0, bytes: 0 };
  const open: OpenLineFile = async (f) => {
    counts.opens++;
    const fh = await openLineFile(f);
    return {
      read: async (buf, off, len, pos) => {
        counts.reads++;
        const r = await fh.read(buf, off, len, pos);
        counts.bytes += r.bytesRead;
        return r;
      },
      close: () => fh.close(),
    };
  };
  return Object.assign(counts, { open });
}
