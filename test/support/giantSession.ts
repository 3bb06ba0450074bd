import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Writes a session whose one entry line is `giantBytes` long (a base64-like
 * text blob), with ordinary entries before and after it, streaming the
 * giant line in 1 MB writes so the writer never holds it as one string.
 * The giant entry is written in Pi's key order (indexable without parsing)
 * unless `reordered`, then its keys come in another order (it can only be
 * skipped and reported).
 */
export interface GiantSessionLayout {
  /** Ids of the entries in file order, the giant one included (when indexable). */
  ids: string[];
  giantId: string;
  /** 1-based line number of the giant entry. */
  giantLine: number;
  /** Byte length of the giant line (without its line break). */
  giantBytes: number;
}

const TS = '2026-01-01T00:00:00.000Z';

function message(id: string, parentId: string | null, role: 'user' | 'assistant', text: string): string {
  const body =
    role === 'assistant'
      ? {
          role,
          content: [{ type: 'text', text }],
          stopReason: 'stop',
          usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20 },
          timestamp: 1,
        }
      : { role, content: [{ type: 'text', text }], timestamp: 1 };
  return JSON.stringify({ type: 'message', id, parentId, timestamp: TS, message: body });
}

export function writeGiantSession(
  file: string,
  giantBytes: number,
  options: { before?: number; after?: number; reordered?: boolean } = {},
): GiantSessionLayout {
  const before = options.before ?? 3;
  const after = options.after ?? 3;
  const fd = openSync(file, 'w');
  const ids: string[] = [];
  let line = 1;
  let parent: string | null = null;
  const put = (s: string) => {
    writeSync(fd, s);
  };
  try {
    put(JSON.stringify({ type: 'session', version: 3, id: 'giant', timestamp: TS, cwd: '/w' }) + '\n');
    for (let i = 0; i < before; i++) {
      const id = `b${i}`;
      put(message(id, parent, i % 2 ? 'assistant' : 'user', `before the giant entry, message ${i}: hello world`) + '\n');
      ids.push(id);
      parent = id;
      line++;
    }
    const giantId = 'giant0';
    const messageHead = `"message":{"role":"user","content":[{"type":"text","text":"`;
    const head = options.reordered
      ? `{"parentId":${JSON.stringify(parent)},"id":"${giantId}","type":"message","timestamp":"${TS}",${messageHead}`
      : `{"type":"message","id":"${giantId}","parentId":${JSON.stringify(parent)},"timestamp":"${TS}",${messageHead}`;
    const tail = '"}],"timestamp":1}}';
    const fill = giantBytes - head.length - tail.length;
    put(head);
    const block = Buffer.from('QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(Math.ceil((1 << 20) / 35)).slice(0, 1 << 20));
    let left = fill;
    while (left > 0) {
      const n = Math.min(left, block.length);
      writeSync(fd, block, 0, n);
      left -= n;
    }
    put(tail + '\n');
    line++;
    const giantLine = line;
    if (!options.reordered) {
      ids.push(giantId);
      parent = giantId;
    }
    for (let i = 0; i < after; i++) {
      const id = `a${i}`;
      put(message(id, parent, i % 2 ? 'user' : 'assistant', `after the giant entry, message ${i}: all done`) + '\n');
      ids.push(id);
      parent = id;
      line++;
    }
    return { ids, giantId, giantLine, giantBytes: head.length + fill + tail.length };
  } finally {
    closeSync(fd);
  }
}
