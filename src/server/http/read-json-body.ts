// Reads a request body as JSON, refusing more than `limit` bytes (413) and malformed JSON (400). The
// content type is not insisted on: `curl -d` sends JSON as form-urlencoded, and refusing it helps nobody.
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
  const text = await readBodyText(req, limit);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DomainError('invalid_request', `malformed JSON body: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The body as UTF-8 text, or undefined when there is none (or only whitespace). */
export function readBodyText(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<string | undefined> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      fn();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) settle(() => reject(tooLarge(limit)));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      settle(() => {
        if (size === 0) return resolve(undefined);
        const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString('utf8');
        resolve(text.trim() === '' ? undefined : text);
      }),
    );
    req.once('error', () => settle(() => reject(new ClientGone())));
    req.once('close', () => settle(() => reject(new ClientGone())));
  });
}
