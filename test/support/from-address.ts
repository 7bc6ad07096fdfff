// Clients that connect from a chosen loopback address (127.x.y.z: every one of them is this machine's),
// as people on different machines would, directly or through a proxy: HTTP requests, raw bytes (a
// PROXY protocol header ahead of a request), and WebSocket upgrades.
import { request } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';

export interface FromReply {
  readonly status: number;
  readonly code: string | null;
  readonly text: string;
}

/** One HTTP request from `localAddress` (its own connection). */
export function httpFrom(localAddress: string, url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<FromReply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (res.headers['x-error-code'] as string | undefined) ?? null, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface RawOutcome {
  /** Everything the server wrote before the connection ended. */
  readonly text: string;
  /** The server ended the connection (false: still open when the wait was over). */
  readonly closed: boolean;
}

/** Writes `chunks` from `localAddress` (a tick apart when `spaced`), then reads until the server closes or `waitMs` passes. */
export function rawFrom(localAddress: string, port: number, chunks: readonly Uint8Array[], waitMs = 3_000, spaced = false): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const received: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(received).toString('latin1'), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('close', () => finish(true));
    // A reset is the server closing too (it destroyed the socket with bytes unread).
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? finish(true) : reject(err)));
    socket.once('connect', () => {
      void (async () => {
        for (const chunk of chunks) {
          if (socket.destroyed) return;
          socket.write(chunk);
          if (spaced) await new Promise((r) => setTimeout(r, 2));
        }
      })();
    });
  });
}

export type UpgradeOutcome = { readonly open: WebSocket } | { readonly status: number; readonly code: string | null };

/** A WebSocket upgrade from `localAddress`: the open socket, or the refusal's status and code. */
export function wsFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress, headers });
    ws.once('open', () => resolve({ open: ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, code: (res.headers['x-error-code'] as string | undefined) ?? null });
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}
