// The HTTP API: every route of the specification, mounted from one table of declarations (which also
// generates the OpenAPI document). Each route runs as one handler, in this order: authenticate, rate
// limit (trader routes), parse path and query, read and parse the body, then the route itself. So a
// refused request (401, 429) never reads its body, and nothing before the route changes state.
//
// Routes live in an express 5 app. In front of it, the fast path (fast-path.ts) serves the trader
// routes (order entry and the reads bots poll) straight from node:http, synchronously where it can, with
// the same answers; then requests whose method and path name another route without path parameters
// exactly go straight to that route's express handler: express's router walk costs about as much as the
// whole order path does (measured in docs/benchmarks.md). Every other request, and any spelling the
// exact match misses (case, trailing slash, percent-encoding), is express's, and reaches the same
// handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import { DomainError } from '../../commands/errors.ts';
import type { ServerContext } from '../context.ts';
import { adminRoutes } from './admin-routes.ts';
import { marketDataRoutes } from './market-data-routes.ts';
import { orderRoutes } from './order-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { answerFailure, pathOf } from './answer-failure.ts';
import { CallerGate } from './caller-gate.ts';
import { corsGate } from './cors.ts';
import { officialLeaderboardRoute, operatorRoutes } from './operator-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { metricsRoute } from '../operations/metrics/metrics-route.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { parseInput } from './parse-input.ts';
import { practiceRoutes } from './practice-routes.ts';
import { publicRoutes } from './public-routes.ts';
import { inOrder } from './in-order.ts';
import { createFastPath } from './fast-path.ts';
import { readJsonBody } from './read-json-body.ts';
import type { RouteSeries } from '../operations/metrics/exchange-metrics.ts';
import { bodyLimitOf, expressPath, readsBody, REPLIED, type AnyRoute, type Call } from './route.ts';
import { sendError, sendJson } from './send.ts';
import { traderRoutes } from './trader-routes.ts';

/** A node:http request handler; `express` is the app behind it (tests read its router). */
export type HttpApp = ((req: IncomingMessage, res: ServerResponse) => void) & { readonly express: express.Express };

type RouteHandler = (req: IncomingMessage, res: ServerResponse, params: unknown, query: unknown) => Promise<void>;

/** The routes the app serves, documentation included; the OpenAPI document is generated from them. */
export function allRoutes(openApiJson: () => string): AnyRoute[] {
  return [...publicRoutes, ...marketDataRoutes, ...traderRoutes, ...orderRoutes, ...keyRoutes, officialLeaderboardRoute, ...adminRoutes, ...operatorRoutes, ...practiceRoutes, metricsRoute, ...docsRoutes(openApiJson)];
}

export interface HttpAppOptions {
  /** Serve the trader routes through the fast path (default); false: through the express mount only (tests compare the two). */
  readonly fastPath?: boolean;
}

export function createHttpApp(context: ServerContext, options: HttpAppOptions = {}): HttpApp {
  const { config, logger } = context;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  let openApiJson: string | null = null;
  const routes: AnyRoute[] = allRoutes(() => (openApiJson ??= JSON.stringify(buildOpenApiDocument(routes, { perUserRequestsPerSecond: config.perUserRequestsPerSecond }))));
  const gate = new CallerGate(context);
  const fail = (err: unknown, req: IncomingMessage, res: ServerResponse, series: RouteSeries): void => answerFailure(err, req, res, series, logger);
  // One series per route, whichever way a request reaches it (the cells are not shared by label).
  const series = new Map(routes.map((r) => [r, context.metrics.route(r.method, r.path)]));
  const seriesOf = (route: AnyRoute): RouteSeries => series.get(route) as RouteSeries;

  const handlerOf = (route: AnyRoute): RouteHandler => {
    const reads = readsBody(route);
    const limit = bodyLimitOf(route, config);
    const series = seriesOf(route);
    return async (req, res, rawParams, rawQuery) => {
      const started = performance.now();
      try {
        const { trader, apiKey, key } = gate.check(route, req, res);
        const params = route.params === undefined ? undefined : parseInput(route.params, rawParams, 'path');
        const query = route.query === undefined ? undefined : parseInput(route.query, rawQuery, 'query');
        // Body-less POSTs still refuse malformed JSON, so garbage never triggers an action.
        const raw = reads ? await (route.readBody ?? readJsonBody)(req, limit) : undefined;
        const body = route.body === undefined ? undefined : parseInput(route.body, raw, 'body');
        // Once shutdown began, let the client know this connection will not be kept.
        if (context.service.isClosed) res.setHeader('connection', 'close');
        const call: Call<unknown, unknown, unknown> = { context, params, query, body, trader, apiKey, key, req, res };
        const out: unknown = await route.handle(call);
        if (out !== REPLIED) sendJson(res, route.success.status, out);
      } catch (err) {
        fail(err, req, res, series);
      }
      series.latency.observeSince(started);
    };
  };

  const exact = new Map<string, RouteHandler>();
  for (const route of routes) {
    const handler = handlerOf(route);
    app[route.method](expressPath(route.path), (req: Request, res: Response) => void handler(req, res, req.params, req.query));
    if (!route.path.includes('{')) exact.set(`${route.method.toUpperCase()} ${route.path}`, handler);
  }

  // Unknown path: 404; known path, other method: 405 with Allow. Counted under one route label, so a
  // scan of made-up URLs cannot grow the series.
  const unmatched = context.metrics.route('any', '(unmatched)');
  const patterns = routes.map((r) => ({ method: r.method.toUpperCase(), regex: new RegExp(`^${r.path.replace(/\{[A-Za-z0-9_]+\}/g, '[^/]+')}/?$`, 'i') }));
  app.use((req: Request, res: Response) => {
    const allowed = patterns.filter((p) => p.regex.test(req.path)).map((p) => p.method);
    if (allowed.length === 0) {
      unmatched.refused('not_found');
      sendError(res, new DomainError('not_found', `no such route: ${req.method} ${req.path}`));
      return;
    }
    if (allowed.includes('GET')) allowed.push('HEAD');
    res.setHeader('allow', allowed.join(', '));
    unmatched.refused('method_not_allowed');
    sendError(res, new DomainError('method_not_allowed', `method ${req.method} not allowed on ${req.path}; allowed: ${allowed.join(', ')}`));
  });

  // What express itself refuses (a malformed percent-encoding in the path, ...).
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = typeof err === 'object' && err !== null && 'status' in err ? Number((err as { status: unknown }).status) : 500;
    if (status >= 400 && status < 500) {
      unmatched.refused('invalid_request');
      sendError(res, new DomainError('invalid_request', `malformed request: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    fail(err, req, res, unmatched);
  });

  const fast = options.fastPath === false ? null : createFastPath(routes, { context, gate, seriesOf });
  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    // A fragment or a backslash in the URL is express's to read (it drops the one, turns the other into a
    // slash); neither the fast path nor the exact paths here would match what it serves.
    if (url.includes('#') || url.includes('\\')) {
      app(req, res);
      return;
    }
    if (fast !== null && fast(req, res)) return;
    const q = url.indexOf('?');
    const handler = exact.get(`${req.method} ${q === -1 ? url : url.slice(0, q)}`);
    if (handler === undefined) {
      app(req, res);
      return;
    }
    void handler(req, res, {}, q === -1 ? {} : parseQueryString(url.slice(q + 1)));
  };

  const cors = corsGate(config.limits.cors_allowed_origins);
  let entry: (req: IncomingMessage, res: ServerResponse) => void =
    cors === null
      ? dispatch
      : (req, res) => {
          if (!cors(req, res)) dispatch(req, res);
        };
  if (logger.isLevelEnabled('debug')) {
    // One structured line per request, whichever way it was dispatched, with the client's address.
    const inner = entry;
    entry = (req, res) => {
      const started = performance.now();
      const address = context.addresses.of(req);
      res.once('finish', () => {
        const code = res.getHeader('x-error-code');
        logger.debug(
          { method: req.method, path: pathOf(req), address, status: res.statusCode, ms: Math.round((performance.now() - started) * 1000) / 1000, ...(code === undefined ? {} : { code }) },
          'request',
        );
      });
      inner(req, res);
    };
  }
  // One request at a time per connection, in the order sent (in-order.ts).
  return Object.assign(inOrder(entry), { express: app });
}
