// A small client for the tests: real fetch against the server, with helpers to provision traders and
// define markets through the admin API.
import { expect } from 'chai';
import { checkedFetch } from '../../support/contract.ts';
import { ADMIN_TOKEN } from './http-server.ts';

export interface Reply<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
  readonly code: string | null;
}

export interface RequestOptions {
  readonly apiKey?: string;
  readonly admin?: boolean;
  readonly token?: string;
  readonly body?: unknown;
  /** Sent as is (malformed JSON, oversize bodies). */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export class Client {
  readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
    if (options.admin === true) headers['authorization'] = `Bearer ${ADMIN_TOKEN}`;
    if (options.token !== undefined) headers['authorization'] = options.token;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    const res = await checkedFetch(this.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) parsed = text === '' ? null : JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers, code: res.headers.get('x-error-code') };
  }

  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    return this.request<T>(method, path, { admin: true, ...(body === undefined ? {} : { body }) });
  }

  trader<T = unknown>(apiKey: string, method: string, path: string, body?: unknown): Promise<Reply<T>> {
    return this.request<T>(method, path, { apiKey, ...(body === undefined ? {} : { body }) });
  }

  async provision(username: string): Promise<Trader> {
    const r = await this.admin<{ profile: Trader }>('POST', '/api/v1/admin/users', { username });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.profile;
  }

  async market(definition: Partial<MarketDefinition> & { market_id: string }): Promise<void> {
    const [base, quote] = definition.market_id.split('-');
    const r = await this.admin('POST', '/api/v1/admin/markets', {
      base_asset: base,
      quote_asset: quote,
      tick_size: 1,
      min_order_quantity: 1,
      reference_price: null,
      enabled: true,
      ...definition,
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  }

  async order(apiKey: string, market: string, side: 'BUY' | 'SELL', price: number, quantity: number): Promise<Reply<SubmitReply>> {
    return this.trader<SubmitReply>(apiKey, 'POST', '/api/v1/orders', { market, side, price, quantity });
  }
}

export interface Trader {
  readonly trader_id: string;
  readonly username: string;
  readonly api_key: string;
  readonly created_at: string;
}

export interface MarketDefinition {
  readonly market_id: string;
  readonly base_asset: string;
  readonly quote_asset: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly reference_price: number | null;
  readonly enabled: boolean;
  readonly display_name?: string | null;
  readonly maker_fee_bps?: number;
  readonly taker_fee_bps?: number;
  readonly position_limit?: number;
  readonly max_open_orders?: number | null;
}

export interface OrderBody {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: string;
  readonly price: number;
  readonly quantity: number;
  readonly remaining: number;
  readonly created_at: string;
}

export interface FillBody {
  readonly fill_id: string;
  readonly market: string;
  readonly maker_order_id: string;
  readonly taker_order_id: string;
  readonly price: number;
  readonly quantity: number;
  readonly occurred_at: string;
  readonly fee: number;
  readonly liquidity: 'maker' | 'taker';
}

export interface SubmitReply {
  readonly order: OrderBody;
  readonly fills: FillBody[];
  readonly resting: boolean;
}

/** Asserts an error reply: status, code header and exact text, and the one-field JSON body. */
export function expectError(r: Reply, status: number, code: string, text?: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).to.equal(status);
  expect(r.code, JSON.stringify(r.body)).to.equal(code);
  expect(r.headers.get('content-type')).to.match(/^application\/json/);
  expect(r.body).to.be.an('object');
  expect(Object.keys(r.body as object)).to.deep.equal(['error']);
  const error = (r.body as { error: unknown }).error;
  expect(error).to.be.a('string');
  if (typeof text === 'string') expect(error).to.equal(text);
  else if (text instanceof RegExp) expect(error).to.match(text);
}

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
