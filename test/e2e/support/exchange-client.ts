// REST calls the end-to-end tests make around the page: set-up through the admin API, and the other
// traders whose orders the page must show. Errors come back as the API's own text.
import { ADMIN_TOKEN } from '../../support/server.ts';
import { checkedFetch } from '../../support/contract.ts';

export interface Order {
  readonly id: string;
  readonly market: string;
  readonly side: 'BUY' | 'SELL';
  readonly price: number;
  readonly quantity: number;
  readonly remaining: number;
}

export class RestError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export class ExchangeClient {
  private readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async call<T>(method: string, path: string, auth: { apiKey?: string; admin?: boolean }, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (auth.apiKey !== undefined) headers['x-api-key'] = auth.apiKey;
    if (auth.admin === true) headers['authorization'] = `Bearer ${ADMIN_TOKEN}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await checkedFetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new RestError(res.status, (JSON.parse(text) as { error: string }).error);
    return JSON.parse(text) as T;
  }

  /** `rules`: the market's fees, position limit and cap on open orders, if any. */
  async market(id: string, tick = 1, reference: number | null = 100, rules: Record<string, number | null> = {}): Promise<void> {
    const [base, quote] = id.split('-');
    await this.call('POST', '/api/v1/admin/markets', { admin: true }, { market_id: id, base_asset: base, quote_asset: quote, tick_size: tick, min_order_quantity: 1, reference_price: reference, enabled: true, ...rules });
  }

  async trader(username: string): Promise<string> {
    const { profile } = await this.call<{ profile: { api_key: string } }>('POST', '/api/v1/admin/users', { admin: true }, { username });
    return profile.api_key;
  }

  async order(apiKey: string, market: string, side: 'BUY' | 'SELL', price: number, quantity: number): Promise<Order> {
    const reply = await this.call<{ order: Order }>('POST', '/api/v1/orders', { apiKey }, { market, side, price, quantity });
    return reply.order;
  }

  openOrders(apiKey: string, market?: string): Promise<Order[]> {
    return this.call<Order[]>('GET', `/api/v1/open-orders${market === undefined ? '' : `?market=${market}`}`, { apiKey });
  }
}

/** Retries an assertion until it passes or the time is up (the page updates asynchronously). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
