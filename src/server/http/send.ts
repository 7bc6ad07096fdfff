// Writing responses. JSON goes out through res.end with a string, so Node sets Content-Length itself;
// express's res.json would also hash the body for an ETag on every reply, which the order path can't afford.
import type { ServerResponse } from 'node:http';
import { DomainError } from '../../commands/errors.ts';
import { NotLeaderError } from '../replication/not-leader.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', JSON_TYPE);
  res.end(JSON.stringify(body));
}

/** Resolves true on 'drain', false when the client went away (a streamed body's backpressure). */
export function drained(res: ServerResponse): Promise<boolean> {
  // Gone already (while the writer waited for its source, say): 'close' came and went, and 'drain'
  // never will; waiting for either would hold the writer, and what it reads from, for good.
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onDrain = (): void => {
      res.off('close', onClose);
      resolve(true);
    };
    const onClose = (): void => {
      res.off('drain', onDrain);
      resolve(false);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Every REST error: `{"error": text}` with the registry code in `x-error-code`. */
export function sendError(res: ServerResponse, error: DomainError): void {
  if (res.headersSent) {
    // A stream that already started cannot turn into an error reply; cutting it tells the client.
    res.destroy();
    return;
  }
  res.statusCode = error.status;
  res.setHeader('x-error-code', error.code);
  res.setHeader('content-type', JSON_TYPE);
  if (error instanceof NotLeaderError) {
    // Cluster mode: the refusal names where the command should go instead.
    if (error.leader !== null) res.setHeader('x-leader', error.leader);
    res.end(JSON.stringify({ error: error.message, leader: error.leader }));
    return;
  }
  res.end(JSON.stringify({ error: error.message }));
}
