// PROXY_PROTOCOL=true: a connection from a trusted proxy (TRUST_PROXY) starts with a PROXY protocol v2
// header naming the client, which is read here before the HTTP server sees a byte; the client's
// address is kept with the socket (proxiedSource) for ClientAddresses. As the protocol's text requires,
// nothing is guessed: from a trusted peer the header must be there (a connection without one, or with a
// malformed one, is closed), and from any other peer it is never read (such a connection goes to HTTP
// as it is, where a header would be a malformed request: 400). So a client cannot name itself.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.ts';
import { parseProxyHeaderV2 } from './proxy-header-v2.ts';

const sources = new WeakMap<Socket, string>();

/** The client's address a PROXY header gave this connection, if it had one that names an address. */
export function proxiedSource(socket: Socket): string | undefined {
  return sources.get(socket);
}

export interface ProxyHeaderReader {
  /** Closes the connections still waiting for their header (the server is shutting down). */
  close(): void;
}

type ConnectionListener = (this: Server, socket: Socket) => void;

/**
 * Puts the header's reading in front of `server`'s own connection handling. `trusts` says whether a
 * peer is a trusted proxy; a header must arrive within `timeoutMs` (the HTTP head's own timeout).
 */
export function readProxyHeaders(server: Server, trusts: (address: string | undefined) => boolean, timeoutMs: number, logger: Logger): ProxyHeaderReader {
  // The HTTP server's own listener (node registers it on 'connection'): run once the header is read.
  const listeners = server.listeners('connection') as ConnectionListener[];
  server.removeAllListeners('connection');
  const serve = (socket: Socket): void => {
    for (const listener of listeners) listener.call(server, socket);
  };
  const waiting = new Set<Socket>();

  server.on('connection', (socket: Socket) => {
    if (!trusts(socket.remoteAddress)) {
      serve(socket);
      return;
    }
    waiting.add(socket);
    let read: Buffer = Buffer.alloc(0);
    const done = (): void => {
      waiting.delete(socket);
      clearTimeout(timer);
      socket.off('readable', onReadable);
      socket.off('end', onEnd);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const refuse = (reason: string): void => {
      done();
      logger.warn({ peer: socket.remoteAddress, reason }, 'PROXY protocol: connection from a trusted proxy refused');
      socket.destroy();
    };
    const onReadable = (): void => {
      for (let chunk: unknown = socket.read(); chunk !== null; chunk = socket.read()) {
        if (!Buffer.isBuffer(chunk)) return refuse('a connection in text mode');
        read = read.length === 0 ? chunk : Buffer.concat([read, chunk]);
        const header = parseProxyHeaderV2(read);
        if (header.kind === 'incomplete') continue;
        if (header.kind === 'invalid') return refuse(header.reason);
        done();
        if (header.source !== null) sources.set(socket, header.source);
        // What came after the header is the HTTP request's start: back to the front of the stream, read
        // first by the HTTP server, whose own 'data' listener resumes the stream.
        if (read.length > header.length) socket.unshift(read.subarray(header.length));
        serve(socket);
        return;
      }
    };
    const onEnd = (): void => refuse('the connection ended inside the header');
    const onError = (): void => {
      done();
      socket.destroy();
    };
    const onClose = (): void => done();
    const timer = setTimeout(() => refuse(`no complete PROXY protocol v2 header within ${timeoutMs} ms`), timeoutMs);
    timer.unref();
    socket.on('readable', onReadable);
    socket.on('end', onEnd);
    socket.on('error', onError);
    socket.on('close', onClose);
  });

  return {
    close: () => {
      for (const socket of [...waiting]) socket.destroy();
      waiting.clear();
    },
  };
}
