// A route is declared once, with its access, input schemas, success and error responses and handler;
// the express app mounts it and the OpenAPI document is generated from the same declaration, so the
// two cannot drift apart.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { ErrorCode } from '../../commands/errors.ts';
import type { KeyScope } from '../../events/types.ts';
import type { KeyRecord } from '../../projections/api-keys.ts';
import type { TraderView } from '../../projections/views.ts';
import type { Config } from '../config.ts';
import type { ServerContext } from '../context.ts';
import { BODY_LIMIT_BYTES } from './read-json-body.ts';

export type Access = 'public' | 'trader' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Returned by a handler that already answered (commands reply from the service, streams, pages). */
export const REPLIED: unique symbol = Symbol('replied');
export type Replied = typeof REPLIED;

export interface Call<P, Q, B> {
  readonly context: ServerContext;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** The authenticated caller on trader routes, null elsewhere. */
  readonly trader: TraderView | null;
  readonly apiKey: string | null;
  /** The record of the key the trader presented (its id and scope), null elsewhere. */
  readonly key: KeyRecord | null;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

export interface SuccessResponse {
  readonly status: number;
  readonly description: string;
  /** The schema of the body (of each line, for NDJSON); omitted for pages and files. */
  readonly schema?: z.ZodType;
  /** application/json unless said otherwise. */
  readonly contentType?: string;
  /** Other representations the route answers with on request (Accept, ?format=), e.g. text/csv. */
  readonly alternateContentTypes?: readonly string[];
  /** Another success status with the same body (e.g. 200 for a repeated client_order_id beside 201). */
  readonly alternate?: { readonly status: number; readonly description: string };
}

/**
 * Who may call a route. A trader route names the scope of key it needs (competition-rules.md, "Keys"):
 * `read` takes any key, `trade` refuses a read key (403 insufficient_scope) before anything else of the
 * request is read. Every trader route must decide (the type makes it; test/http/key-scopes.spec.ts
 * holds every route to a table).
 */
export type RouteAccess = { readonly access: 'trader'; readonly scope: KeyScope } | { readonly access: 'public' | 'admin'; readonly scope?: undefined };

export type RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = RouteAccess & RouteDetails<P, Q, B>;

export interface RouteDetails<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  readonly method: Method;
  /** OpenAPI form: /api/v1/orders/{order_id} */
  readonly path: string;
  /** Counted against PER_USER_REQUESTS_PER_SECOND (the specification's Limits table). */
  readonly rateLimited?: boolean;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /**
   * The fast path's stand-in for parsing `body` with zod (the order routes): the exact output zod would
   * give for a body it vouches for, undefined for any other, which zod then parses (and refuses in its
   * own words). Held to the schema by a test; the express mount always parses with zod.
   */
  readonly fastBody?: (value: unknown) => z.output<B> | undefined;
  /** The largest body this route reads, when not the 64 KiB of every other route. */
  readonly bodyLimit?: (config: Config) => number;
  /**
   * Reads the body into what `body` parses, when not JSON (a CSV upload, say); it gets the limit.
   * Other content types in the OpenAPI document are named by `bodyContentTypes`.
   */
  readonly readBody?: (req: IncomingMessage, limit: number) => Promise<unknown>;
  readonly bodyContentTypes?: readonly string[];
  readonly success: SuccessResponse;
  /** Refusals of this route besides the ones its access, body and method imply. */
  readonly errors: readonly ErrorCode[];
  handle(call: Call<z.output<P>, z.output<Q>, z.output<B>>): unknown;
}

export type AnyRoute = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;

export function defineRoute<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<P, Q, B>,
): AnyRoute {
  // Handlers are contravariant in their input; the mount parses with exactly these schemas.
  return spec as unknown as AnyRoute;
}

/** The caller of a trader route (the mount authenticated it before the handler runs). */
export function callerOf(call: { readonly trader: TraderView | null }): TraderView {
  if (call.trader === null) throw new Error('route: trader handler called without an authenticated trader');
  return call.trader;
}

export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** Whether a route reads a body: every method but GET (DELETE too: garbage sent with one must not trigger an action). */
export function readsBody(route: { readonly method: Method }): boolean {
  return route.method !== 'get';
}

/** The largest body a route reads. */
export function bodyLimitOf(route: AnyRoute, config: Config): number {
  return route.bodyLimit === undefined ? BODY_LIMIT_BYTES : route.bodyLimit(config);
}
