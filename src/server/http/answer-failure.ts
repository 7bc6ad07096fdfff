// A request that failed, answered: a refusal (DomainError) as its status and code, counted by code on
// the route's series; anything else is a bug, logged and answered as a 500 internal. Shared by the
// express mount and the fast path, so both answer every failure alike.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, isDomainError } from '../../commands/errors.ts';
import type { Logger } from '../logger.ts';
import type { RouteSeries } from '../operations/metrics/exchange-metrics.ts';
import { LockedOut } from './authenticate.ts';
import { ClientGone } from './read-json-body.ts';
import { sendError } from './send.ts';

export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export function answerFailure(err: unknown, req: IncomingMessage, res: ServerResponse, series: RouteSeries, logger: Logger): void {
  if (err instanceof ClientGone) return;
  series.refused(isDomainError(err) ? err.code : 'internal');
  if (isDomainError(err)) {
    if (err.code === 'body_too_large') res.setHeader('connection', 'close');
    if (err instanceof LockedOut) res.setHeader('retry-after', String(err.retryAfterSeconds));
    if (err.code === 'admission_queue_full') res.setHeader('retry-after', '1');
    if (err.code === 'overflow') logger.warn({ method: req.method, path: pathOf(req), message: err.message }, 'numeric overflow refused');
    sendError(res, err);
    return;
  }
  logger.error({ err, method: req.method, path: pathOf(req) }, 'request failed');
  sendError(res, new DomainError('internal'));
}
