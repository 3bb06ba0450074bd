import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Sessions shaped to stress `arbor tree` (bench/treeScale.ts and the CLI
 * tests): `entries` small messages in one chain with a one-entry side
 * branch every `branchEvery` entries (a wide session: 1e6 entries), or,
 * with `nested`, a chain of `entries` branch points each nesting the next
 * one level deeper (a 20,000-level session). Deterministic; written in
 * chunks, never held whole.
 */
export interface TreeSessionOptions {
  file: string;
  entries: number;
  branchEvery?: number;
  nested?: boolean;
}

export function generateTreeSession(options: TreeSessionOptions): { entries: number; bytes: number } {
  const fd = openSync(options.file, 'w');
  let chunk: string[] = [];
  let size = 0;
  let bytes = 0;
  let count = 0;
  const write = (obj: unknown) => {
    const line = JSON.stringify(obj);
    chunk.push(line);
    size += line.length + 1;
    if (size > 1 << 20) flush();
  };
  const flush = () => {
    if (!chunk.length) return;
    const text = `${chunk.join('\n')}\n`;
    bytes += writeSync(fd, text);
    chunk = [];
    size = 0;
  };
  const t0 = Date.UTC(2026, 0, 1);
  const message = (id: string, parentId: string | null, k: number, role: 'user' | 'assistant') => {
    count++;
    const timestamp = new Date(t0 + k * 1000).toISOString();
    const content = [{ type: 'text', text: `${role} message ${k}: please look at src/module${k % 97}.ts` }];
    write({
      type: 'message',
      id,
      parentId,
      timestamp,
      message: role === 'user' ? { role, content, timestamp: t0 + k } : { role, content, stopReason: 'stop', timestamp: t0 + k },
    });
  };
  try {
    write({ type: 'session', version: 3, id: 'tree-bench', timestamp: new Date(t0).toISOString(), cwd: '/bench' });
    let parent: string | null = null;
    const every = options.branchEvery ?? 100;
    for (let k = 0; count < options.entries; k++) {
      const id = `e${k.toString(36)}`;
      message(id, parent, k, k % 2 ? 'assistant' : 'user');
      if ((options.nested || k % every === every - 1) && count < options.entries) message(`s${k.toString(36)}`, id, k, 'user');
      parent = id;
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return { entries: count, bytes };
}
