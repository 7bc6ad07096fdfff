// The REST API, typed by the OpenAPI document (openapi.ts is generated from it by
// `npm run clients:generate`). A thin wrapper over fetch: every answer that is not 2xx becomes an
// ExchangeError with the HTTP status, the x-error-code header and the {"error"} text.
import { ExchangeError } from './errors.ts';
import type { OrderRef, SubmitOrderArgs } from './messages.ts';
import type { components, paths } from './openapi.ts';
import { checkRef, checkSubmit, marketSymbol, positiveInteger } from './validate.ts';

type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of the 2xx answers of an operation. */
export type Success<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: { responses: infer R } }
  ? { [S in keyof R]: S extends 200 | 201 ? JsonOf<R[S]> : never }[keyof R]
  : never;

export type OrderResponse = Success<'/api/v1/orders/{order_id}', 'get'>;
export type SubmitOrderResponse = Success<'/api/v1/orders', 'post'>;
/** A key as GET /api/v1/keys lists it (never its secret), and the answer that issues one (the secret once). */
export type ApiKey = components['schemas']['ApiKey'];
export type IssuedKey = Success<'/api/v1/keys', 'post'>;

export interface RestClientOptions {
  /** e.g. http://localhost:8080 */
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** Per request; default 10 s. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export class RestClient {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(options: RestClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Any documented route, typed by the OpenAPI document. */
  async request<P extends keyof paths, M extends Method>(method: M, path: P, options: { params?: Record<string, string>; query?: Record<string, string | number | undefined>; body?: unknown } = {}): Promise<Success<P, M>> {
    let url = String(path).replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const v = options.params?.[name];
      if (v === undefined) throw ExchangeError.invalidArgument(`missing path parameter ${name}`);
      return encodeURIComponent(v);
    });
    const query = Object.entries(options.query ?? {}).filter((e): e is [string, string | number] => e[1] !== undefined);
    if (query.length > 0) url += `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString()}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.apiKey !== undefined) headers['x-api-key'] = this.apiKey;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchFn(this.baseUrl + url, {
        method: method.toUpperCase(),
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new ExchangeError(0, timedOut ? 'timeout' : 'disconnected', err instanceof Error ? err.message : String(err));
    }
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        const body = JSON.parse(text) as { error?: unknown };
        if (typeof body.error === 'string') message = body.error;
      } catch {
        // not JSON: keep the text
      }
      throw new ExchangeError(res.status, res.headers.get('x-error-code') ?? 'http_error', message);
    }
    return (text === '' ? null : JSON.parse(text)) as Success<P, M>;
  }

  health() {
    return this.request('get', '/health');
  }

  markets() {
    return this.request('get', '/api/v1/markets');
  }

  user() {
    return this.request('get', '/api/v1/user');
  }

  positions() {
    return this.request('get', '/api/v1/positions');
  }

  portfolio() {
    return this.request('get', '/api/v1/portfolio');
  }

  leaderboard() {
    return this.request('get', '/api/v1/leaderboard');
  }

  /** Open orders: all (an array), or one page when limit or before is given. */
  openOrders(query: { market?: string; limit?: number; before?: string } = {}) {
    return this.request('get', '/api/v1/open-orders', { query });
  }

  fills(query: { market?: string; limit?: number; before?: string } = {}) {
    return this.request('get', '/api/v1/fills', { query });
  }

  async submitOrder(args: SubmitOrderArgs): Promise<SubmitOrderResponse> {
    return this.request('post', '/api/v1/orders', { body: checkSubmit(args) });
  }

  async getOrder(ref: OrderRef): Promise<OrderResponse> {
    const r = checkRef(ref);
    return r.order_id !== undefined
      ? this.request('get', '/api/v1/orders/{order_id}', { params: { order_id: r.order_id } })
      : this.request('get', '/api/v1/orders/by-client-id/{client_order_id}', { params: { client_order_id: r.client_order_id } });
  }

  async cancelOrder(ref: OrderRef): Promise<OrderResponse> {
    const r = checkRef(ref);
    return r.order_id !== undefined
      ? this.request('delete', '/api/v1/orders/{order_id}', { params: { order_id: r.order_id } })
      : this.request('delete', '/api/v1/orders/by-client-id/{client_order_id}', { params: { client_order_id: r.client_order_id } });
  }

  async amendOrder(ref: OrderRef, remaining: number): Promise<OrderResponse> {
    const r = checkRef(ref);
    const body = { remaining: positiveInteger('remaining', remaining) };
    return r.order_id !== undefined
      ? this.request('patch', '/api/v1/orders/{order_id}', { params: { order_id: r.order_id }, body })
      : this.request('patch', '/api/v1/orders/by-client-id/{client_order_id}', { params: { client_order_id: r.client_order_id }, body });
  }

  /** Cancels every open order of the trader, or those of one market. */
  async cancelAll(market?: string) {
    return this.request('delete', '/api/v1/orders', { query: { market: market === undefined ? undefined : marketSymbol(market) } });
  }

  /** The caller's API keys (any scope), with when each was last used. */
  keys() {
    return this.request('get', '/api/v1/keys');
  }

  /** A read key for the caller (needs a trade key): it reads everything and trades nothing; the secret is in this answer only. */
  createReadKey(options: { label?: string; expires_at?: string } = {}): Promise<IssuedKey> {
    return this.request('post', '/api/v1/keys', { body: options });
  }

  /** Revokes one of the caller's keys (needs a trade key); its WebSocket sessions are closed. */
  revokeKey(keyId: string) {
    return this.request('delete', '/api/v1/keys/{key_id}', { params: { key_id: keyId } });
  }

  async trades(market: string, query: { limit?: number; before?: string } = {}) {
    return this.request('get', '/api/v1/markets/{market_id}/trades', { params: { market_id: marketSymbol(market) }, query });
  }

  async candles(market: string, query: Record<string, string | number | undefined> = {}) {
    return this.request('get', '/api/v1/markets/{market_id}/candles', { params: { market_id: marketSymbol(market) }, query });
  }
}
