// Reads a request body as JSON, refusing more than `limit` bytes (413) and malformed JSON (400). The
// content type is not insisted on: `curl -d` sends JSON as form-urlencoded, and refusing it helps nobody.
// The reader itself takes a callback (the HTTP fast path answers without a promise); the promise forms
// wrap it for the routes mounted through express.
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../commands/errors.ts';

export const BODY_LIMIT_BYTES = 64 * 1024;

/** The client went away before the body arrived; there is nobody left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('client closed the request before its body arrived');
    this.name = 'ClientGone';
  }
}

function tooLarge(limit: number): DomainError {
  return new DomainError('body_too_large', `request body larger than ${limit / 1024} KiB`);
}

/** The parsed body, or undefined when there is none. */
export async function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  return parseJsonBody(await readBodyText(req, limit));
}

/** JSON.parse of a body's text (undefined stays undefined), malformed JSON refused as a 400. */
export function parseJsonBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DomainError('invalid_request', `malformed JSON body: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The body as UTF-8 text, or undefined when there is none (or only whitespace). */
export function readBodyText(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<string | undefined> {
  return new Promise((resolve, reject) => readBody(req, limit, (err, text) => (err === null ? resolve(text) : reject(err))));
}

/**
 * Whether the request announces a body: HTTP/1.1 has none without Content-Length or Transfer-Encoding
 * (Node's parser refuses a malformed Content-Length before any route sees it).
 */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * Reads the body as UTF-8 text and calls `done` exactly once: with the text (undefined when empty or
 * only whitespace), with a 413 DomainError (a declared or an actual size over `limit`), or with
 * ClientGone. No 'error' listener is needed: an aborted IncomingMessage without one is destroyed
 * quietly, and 'close' follows either way.
 */
export function readBody(req: IncomingMessage, limit: number, done: (err: DomainError | ClientGone | null, text: string | undefined) => void): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    done(tooLarge(limit), undefined);
    return;
  }
  let first: Buffer | null = null;
  let more: Buffer[] | null = null;
  let size = 0;
  let settled = false;
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
      settled = true;
      done(tooLarge(limit), undefined);
    } else if (first === null) first = chunk;
    else (more ??= [first]).push(chunk);
  });
  req.on('end', () => {
    if (settled) return;
    settled = true;
    if (size === 0 || first === null) return done(null, undefined);
    const text = (more === null ? first : Buffer.concat(more, size)).toString('utf8');
    done(null, text.trim() === '' ? undefined : text);
  });
  req.on('close', () => {
    if (settled) return;
    settled = true;
    done(new ClientGone(), undefined);
  });
}
