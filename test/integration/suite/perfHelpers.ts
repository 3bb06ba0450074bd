// Instruments for the extension-host performance test: bytes read from one file through node:fs
// (whoever reads it: the engine's loader, its tail reader, anything else), and what VS Code asks the
// Sessions view's data provider for (getChildren / getTreeItem calls with timestamps).
// The real module object (a namespace import is a copy whose properties cannot be replaced; the default import is the module).
import fs from 'fs';
import * as path from 'path';
import type { ArborNode } from '../../../src/vscode/tree/nodes';

type AnyFn = (...args: any[]) => any;

/**
 * Counts bytes read from `file` through fs.promises.open (FileHandle.read / readFile),
 * fs.promises.readFile, fs.readFileSync and fs.readSync on a descriptor opened by fs.openSync.
 * The extension's bundle calls these through the shared node:fs module, so it is counted too.
 */
export class ReadCounter {
  bytes = 0;
  opens = 0;
  /** Each FileHandle.read: where and how much (for a report when more was read than expected). */
  readonly reads: { position: unknown; bytes: number; stack: string }[] = [];
  private readonly restores: (() => void)[] = [];
  private readonly fds = new Set<number>();

  constructor(file: string) {
    const target = path.resolve(file);
    const isTarget = (p: unknown) =>
      (typeof p === 'string' || p instanceof URL || Buffer.isBuffer(p)) &&
      path.resolve(String(p instanceof URL ? p.pathname : p)) === target;
    const fsp = fs.promises as unknown as Record<string, AnyFn>;
    this.patch(fsp, 'open', (orig) => async (p: unknown, ...rest: unknown[]) => {
      const fh = await orig(p, ...rest);
      if (isTarget(p)) {
        this.opens++;
        const read = fh.read.bind(fh);
        const readFile = fh.readFile.bind(fh);
        fh.read = async (...args: unknown[]) => {
          const stack = new Error().stack ?? '';
          const r = await read(...args);
          this.bytes += r.bytesRead;
          this.reads.push({ position: args[3], bytes: r.bytesRead, stack });
          return r;
        };
        fh.readFile = async (...args: unknown[]) => {
          const r = await readFile(...args);
          this.bytes += Buffer.byteLength(r);
          return r;
        };
      }
      return fh;
    });
    this.patch(fsp, 'readFile', (orig) => async (p: unknown, ...rest: unknown[]) => {
      const r = await orig(p, ...rest);
      if (isTarget(p)) {
        this.opens++;
        this.bytes += Buffer.byteLength(r);
      }
      return r;
    });
    const sync = fs as unknown as Record<string, AnyFn>;
    this.patch(sync, 'readFileSync', (orig) => (p: unknown, ...rest: unknown[]) => {
      const r = orig(p, ...rest);
      if (isTarget(p)) {
        this.opens++;
        this.bytes += Buffer.byteLength(r);
      }
      return r;
    });
    this.patch(sync, 'openSync', (orig) => (p: unknown, ...rest: unknown[]) => {
      const fd = orig(p, ...rest);
      if (isTarget(p)) {
        this.opens++;
        this.fds.add(fd);
      }
      return fd;
    });
    this.patch(sync, 'readSync', (orig) => (fd: number, ...rest: unknown[]) => {
      const n = orig(fd, ...rest);
      if (this.fds.has(fd)) this.bytes += n;
      return n;
    });
    this.patch(sync, 'createReadStream', (orig) => (p: unknown, ...rest: unknown[]) => {
      const s = orig(p, ...rest);
      if (isTarget(p)) {
        this.opens++;
        s.on('data', (c: Buffer) => (this.bytes += c.length));
      }
      return s;
    });
  }

  private patch(obj: Record<string, AnyFn>, name: string, make: (orig: AnyFn) => AnyFn): void {
    const orig = obj[name];
    obj[name] = make(orig.bind(obj));
    this.restores.push(() => (obj[name] = orig));
  }

  reset(): void {
    this.bytes = 0;
    this.opens = 0;
    this.reads.length = 0;
  }

  dispose(): void {
    for (const r of this.restores.reverse()) r();
  }
}

export interface ProviderCall {
  method: 'getChildren' | 'getTreeItem';
  node: ArborNode | undefined;
  start: number;
  end: number;
  /** getChildren: the result. */
  result?: ArborNode[];
}

interface Provider {
  getChildren(node?: ArborNode): Promise<ArborNode[]>;
  getTreeItem(node: ArborNode): unknown;
}

/** Wraps the provider instance VS Code calls, recording each call with performance.now() timestamps. */
export class ProviderSpy {
  readonly calls: ProviderCall[] = [];
  private readonly origChildren: Provider['getChildren'];
  private readonly origItem: Provider['getTreeItem'];

  constructor(private readonly provider: Provider) {
    this.origChildren = provider.getChildren;
    this.origItem = provider.getTreeItem;
    const { calls, origChildren, origItem } = this;
    provider.getChildren = async function (this: Provider, node?: ArborNode) {
      const call: ProviderCall = { method: 'getChildren', node, start: performance.now(), end: 0 };
      calls.push(call);
      const r = await origChildren.call(this, node);
      call.end = performance.now();
      call.result = r;
      return r;
    };
    provider.getTreeItem = function (this: Provider, node: ArborNode) {
      const call: ProviderCall = { method: 'getTreeItem', node, start: performance.now(), end: 0 };
      calls.push(call);
      const r = origItem.call(this, node);
      call.end = performance.now();
      return r;
    };
  }

  clear(): void {
    this.calls.length = 0;
  }

  dispose(): void {
    this.provider.getChildren = this.origChildren;
    this.provider.getTreeItem = this.origItem;
  }
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}
