import type { Socket } from 'node:net';

/**
 * Newline-delimited records on a socket, with a size cap: bytes are split on
 * LF only (never on U+2028/U+2029, which JSON strings may hold), a record over
 * the cap is reported once and the rest of the stream is dropped.
 */
export interface LineHandlers {
  onLine: (line: string) => void;
  /** A record grew past `maxBytes` before its line ended. No further lines are delivered. */
  onTooLarge: () => void;
}

export function readLines(socket: Socket, maxBytes: number, handlers: LineHandlers): void {
  let parts: Buffer[] = [];
  let size = 0;
  let dead = false;
  socket.on('data', (chunk: Buffer) => {
    if (dead) return;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      size += end - start;
      if (size > maxBytes) {
        dead = true;
        parts = [];
        handlers.onTooLarge();
        return;
      }
      if (nl < 0) {
        if (end > start) parts.push(chunk.subarray(start, end));
        return;
      }
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
      parts = [];
      size = 0;
      start = nl + 1;
      if (line.trim()) handlers.onLine(line);
      if (dead) return;
    }
  });
}

/** Writes one record as a JSON line. */
export function writeLine(socket: Socket, record: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(record)}\n`);
}
