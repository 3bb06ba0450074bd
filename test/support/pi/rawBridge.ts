import * as net from 'node:net';

/**
 * A raw client of a bridge endpoint for hostile-input tests: sends bytes as
 * they are (no protocol framing of its own) and collects the response lines
 * until it has `lines` of them or the bridge ends the connection.
 */
export interface RawExchange {
  lines: Record<string, unknown>[];
  /** The bridge ended (or reset) the connection. */
  ended: boolean;
}

export function rawExchange(
  endpoint: string,
  data: string | Buffer,
  options: { lines?: number; halfClose?: boolean } = {},
): Promise<RawExchange> {
  const want = options.lines ?? 1;
  return new Promise((resolve) => {
    const socket = net.createConnection({ path: endpoint, allowHalfOpen: true });
    const lines: Record<string, unknown>[] = [];
    let carry = '';
    let done = false;
    const finish = (ended: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ lines, ended });
    };
    // halfClose: send, then close the sending side (as `… | nc -U` does), still reading the answer.
    socket.on('connect', () => (options.halfClose ? socket.end(data) : socket.write(data)));
    socket.on('data', (chunk: Buffer) => {
      carry += chunk.toString('utf8');
      for (let nl = carry.indexOf('\n'); nl >= 0; nl = carry.indexOf('\n')) {
        lines.push(JSON.parse(carry.slice(0, nl)) as Record<string, unknown>);
        carry = carry.slice(nl + 1);
      }
      if (lines.length >= want) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

/** One request line (JSON + LF). */
export function line(request: unknown): string {
  return `${JSON.stringify(request)}\n`;
}
