// CORS: off unless CORS_ALLOWED_ORIGINS names origins (organizers who host their own front end). Off,
// no CORS header is ever sent, so a browser on another origin cannot read any answer. On, a request
// from a listed origin gets Access-Control-Allow-Origin (that origin, never '*') and sees the headers
// clients need; a preflight from a listed origin gets 204; from any other origin, 403 JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../../commands/errors.ts';
import { sendError } from './send.ts';

const ALLOW_METHODS = 'GET, HEAD, POST, PATCH, DELETE';
const ALLOW_HEADERS = 'content-type, x-api-key, authorization';
const EXPOSE_HEADERS = 'x-error-code, x-ratelimit-limit, x-ratelimit-remaining, retry-after';

/** Returns true when it answered the request itself (a preflight or a refused origin's preflight). */
export type CorsGate = (req: IncomingMessage, res: ServerResponse) => boolean;

export function corsGate(allowed: readonly string[]): CorsGate | null {
  if (allowed.length === 0) return null;
  const origins = new Set(allowed);
  return (req, res) => {
    const origin = req.headers.origin;
    res.setHeader('vary', 'origin');
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (origin === undefined || !origins.has(origin)) {
      if (!preflight) return false;
      sendError(res, new DomainError('cors_origin_not_allowed', `origin ${JSON.stringify(origin ?? null)} is not allowed (CORS_ALLOWED_ORIGINS)`));
      return true;
    }
    res.setHeader('access-control-allow-origin', origin);
    if (!preflight) {
      res.setHeader('access-control-expose-headers', EXPOSE_HEADERS);
      return false;
    }
    res.statusCode = 204;
    res.setHeader('access-control-allow-methods', ALLOW_METHODS);
    res.setHeader('access-control-allow-headers', ALLOW_HEADERS);
    res.setHeader('access-control-max-age', '600');
    res.end();
    return true;
  };
}
