// Test setup over the real REST API of a running server: traders, markets, operator actions, and the
// open orders a trader sees.
import type { RunningServer } from '../../../src/server/app.ts';
import { checkedFetch } from '../../support/contract.ts';
import type { OrderView } from '../../../src/projections/views.ts';
import { ADMIN_TOKEN, startTestServer } from '../../support/server.ts';
import { WsTestClient, type Frame } from './ws-test-client.ts';

export interface Trader {
  readonly trader_id: string;
  readonly username: string;
  readonly api_key: string;
}

export class ExchangeFixture {
  readonly server: RunningServer;
  private readonly clients: WsTestClient[] = [];

  private constructor(server: RunningServer) {
    this.server = server;
  }

  static async start(env: Record<string, string> = {}): Promise<ExchangeFixture> {
    return new ExchangeFixture(await startTestServer(env));
  }

  async admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await checkedFetch(`${this.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  async trader(username: string): Promise<Trader> {
    const { profile } = (await this.admin('POST', '/api/v1/admin/users', { username })) as { profile: Trader };
    return profile;
  }

  async market(marketId: string, options: { tick_size?: number; min_order_quantity?: number; enabled?: boolean } = {}): Promise<void> {
    const [base, quote] = marketId.split('-');
    await this.admin('POST', '/api/v1/admin/markets', {
      market_id: marketId,
      base_asset: base,
      quote_asset: quote,
      tick_size: options.tick_size ?? 1,
      min_order_quantity: options.min_order_quantity ?? 1,
      reference_price: null,
      enabled: options.enabled ?? true,
    });
  }

  async openOrders(trader: Trader): Promise<OrderView[]> {
    const res = await checkedFetch(`${this.server.url}/api/v1/open-orders`, { headers: { 'x-api-key': trader.api_key } });
    if (!res.ok) throw new Error(`open-orders: ${res.status}`);
    return (await res.json()) as OrderView[];
  }

  /** A connected client (closed with the fixture). */
  async client(): Promise<WsTestClient> {
    const c = await WsTestClient.open(this.server.wsUrl);
    this.clients.push(c);
    return c;
  }

  /** A connected client authenticated as `trader`. */
  async clientAs(trader: Trader): Promise<WsTestClient> {
    const c = await this.client();
    c.send({ op: 'authenticate', api_key: trader.api_key });
    await c.nextType('authenticated');
    return c;
  }

  /** Subscribes and returns the snapshot. */
  static async subscribe(client: WsTestClient, market: string): Promise<Frame> {
    client.send({ op: 'subscribe', channel: 'l3', market });
    return client.next((f) => f.type === 'snapshot' && f['market'] === market, `snapshot of ${market}`);
  }

  track(client: WsTestClient): WsTestClient {
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
    await this.server.close();
  }
}

let counter = 0;
/** Order ops need a request_id to be awaited; this makes unique ones. */
export function rid(prefix = 'r'): string {
  return `${prefix}${++counter}`;
}
