// The fast path: the trader routes (order entry, cancels and amends, the reads that bots poll), served
// straight from node:http, in front of express. The express mount (app.ts) costs every request an
// async function, a promise per step and a zod parse of the body; at thousands of orders a second that
// was as much time as the order itself (docs/benchmarks.md). Here a request runs synchronously from
// its head to its reply whenever it can: the caller gate, the path and query, the body through two
// listeners and a callback, the order bodies' hand-written checks (zod for anything they do not vouch
// for), and runCommand's synchronous admission. Every answer is the express mount's: the same steps in
// the same order with the same shared pieces (CallerGate, answerFailure, parseInput, runCommand,
// sendJson), which test/http/fast-path.spec.ts checks by sending both the same seeded requests.
//
// Requests are matched by exact method and path, and for routes ending in one parameter
// (/api/v1/orders/{order_id}) by prefix and one segment without '/' or '%'; any other spelling (case,
// trailing slash, percent-encoding) is left to express, which decodes and matches it as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { ServerContext } from '../context.ts';
import type { RouteSeries } from '../operations/metrics/exchange-metrics.ts';
import { answerFailure } from './answer-failure.ts';
import type { Caller, CallerGate } from './caller-gate.ts';
import { parseInput } from './parse-input.ts';
import { announcesBody, parseJsonBody, readBody } from './read-json-body.ts';
import { bodyLimitOf, readsBody, REPLIED, type AnyRoute } from './route.ts';
import { sendJson } from './send.ts';

/** Answers the request and returns true when it is one of the fast routes; false leaves it to express. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

type Handler = (req: IncomingMessage, res: ServerResponse, param: string | null, queryText: string | null) => void;

/** `/prefix/{name}`: the prefix (with its slash) and the parameter's name; null for other paths. */
function trailingParameter(path: string): { prefix: string; name: string } | null {
  const m = /^([^{}]*\/)\{([A-Za-z0-9_]+)\}$/.exec(path);
  return m === null ? null : { prefix: m[1] as string, name: m[2] as string };
}

/** The routes the fast path serves: every trader route whose path is exact or ends in one parameter. */
function isFastRoute(route: AnyRoute): boolean {
  return route.access === 'trader' && route.readBody === undefined && (!route.path.includes('{') || trailingParameter(route.path) !== null);
}

export interface FastPathParts {
  readonly context: ServerContext;
  readonly gate: CallerGate;
  /** The route's series, the same object the express mount counts on. */
  readonly seriesOf: (route: AnyRoute) => RouteSeries;
}

export function createFastPath(routes: readonly AnyRoute[], shared: FastPathParts): FastPath {
  // method -> path -> handler; and method -> [prefix, handler] for the routes ending in a parameter.
  const exact = new Map<string, Map<string, Handler>>();
  const prefixed = new Map<string, { prefix: string; handler: Handler }[]>();
  for (const route of routes) {
    if (!isFastRoute(route)) continue;
    const method = route.method.toUpperCase();
    const tail = trailingParameter(route.path);
    const handler = handlerOf(route, shared, tail?.name ?? null);
    if (tail === null) {
      let paths = exact.get(method);
      if (paths === undefined) exact.set(method, (paths = new Map()));
      paths.set(route.path, handler);
    } else {
      let list = prefixed.get(method);
      if (list === undefined) prefixed.set(method, (list = []));
      list.push({ prefix: tail.prefix, handler });
    }
  }
  // The longest prefix first: /api/v1/orders/by-client-id/{id} before /api/v1/orders/{id}.
  for (const list of prefixed.values()) list.sort((a, b) => b.prefix.length - a.prefix.length);

  return (req, res) => {
    const method = req.method ?? '';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const queryText = q === -1 ? null : url.slice(q + 1);
    const handler = exact.get(method)?.get(path);
    if (handler !== undefined) {
      handler(req, res, null, queryText);
      return true;
    }
    const list = prefixed.get(method);
    if (list === undefined) return false;
    for (const { prefix, handler: h } of list) {
      if (!path.startsWith(prefix)) continue;
      const segment = path.slice(prefix.length);
      if (segment === '' || segment.includes('/') || segment.includes('%')) return false;
      h(req, res, segment, queryText);
      return true;
    }
    return false;
  };
}

function handlerOf(route: AnyRoute, { context, gate, seriesOf }: FastPathParts, paramName: string | null): Handler {
  const reads = readsBody(route);
  const limit = bodyLimitOf(route, context.config);
  const parts: Parts = { route, context, series: seriesOf(route), reads };
  return (req, res, param, queryText) => {
    const started = performance.now();
    let caller: Caller;
    let params: unknown;
    let query: unknown;
    try {
      caller = gate.check(route, req, res);
      params = route.params === undefined ? undefined : parseInput(route.params, paramName === null ? {} : { [paramName]: param }, 'path');
      query = route.query === undefined ? undefined : parseInput(route.query, queryText === null ? {} : parseQueryString(queryText), 'query');
    } catch (err) {
      failed(parts, err, req, res, started);
      return;
    }
    if (reads && announcesBody(req)) {
      readBody(req, limit, (err, text) => {
        if (err === null) respond(parts, req, res, caller, params, query, text, started);
        else failed(parts, err, req, res, started);
      });
      return;
    }
    respond(parts, req, res, caller, params, query, undefined, started);
  };
}

interface Parts {
  readonly route: AnyRoute;
  readonly context: ServerContext;
  readonly series: RouteSeries;
  readonly reads: boolean;
}

function respond(parts: Parts, req: IncomingMessage, res: ServerResponse, caller: Caller, params: unknown, query: unknown, text: string | undefined, started: number): void {
  const { route, context, reads } = parts;
  try {
    // Body-less POSTs still refuse malformed JSON, so garbage never triggers an action.
    const raw = reads ? parseJsonBody(text) : undefined;
    const body = route.body === undefined ? undefined : (route.fastBody?.(raw) ?? parseInput(route.body, raw, 'body'));
    // Once shutdown began, let the client know this connection will not be kept.
    if (context.service.isClosed) res.setHeader('connection', 'close');
    const out: unknown = route.handle({ context, params, query, body, trader: caller.trader, apiKey: caller.apiKey, key: caller.key, req, res });
    if (out instanceof Promise) {
      out.then(
        (value: unknown) => replied(parts, req, res, value, started),
        (err: unknown) => failed(parts, err, req, res, started),
      );
      return;
    }
    if (out !== REPLIED) sendJson(res, route.success.status, out);
  } catch (err) {
    failed(parts, err, req, res, started);
    return;
  }
  parts.series.latency.observeSince(started);
}

function replied(parts: Parts, req: IncomingMessage, res: ServerResponse, out: unknown, started: number): void {
  try {
    if (out !== REPLIED) sendJson(res, parts.route.success.status, out);
  } catch (err) {
    answerFailure(err, req, res, parts.series, parts.context.logger);
  }
  parts.series.latency.observeSince(started);
}

function failed(parts: Parts, err: unknown, req: IncomingMessage, res: ServerResponse, started: number): void {
  answerFailure(err, req, res, parts.series, parts.context.logger);
  parts.series.latency.observeSince(started);
}
