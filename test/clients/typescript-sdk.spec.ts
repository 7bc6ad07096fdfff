// The TypeScript SDK (clients/typescript) against the real server: its local books equal the server's
// after a random session of thousands of commands across three markets with the connection killed
// twice; it refuses malformed arguments before sending anything; it surfaces the exchange's errors with
// status, code and text; a submit whose answer was lost is retried with the same client_order_id and
// yields one order.
import { expect } from 'chai';
import { WebSocket } from 'ws';
import { ExchangeError, ExchangeSocket, L3Book, type ExchangeSocketOptions, RestClient, type BookOrder, type WebSocketConstructor } from '../../clients/typescript/src/index.ts';
import { prng } from '../../replay/prng.ts';
import { ExchangeFixture, type Trader } from '../ws/support/exchange-fixture.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';

const MARKETS = ['AAA-USD', 'BBB-USD', 'CCC-USD'];
/** Every SDK socket a test opens, closed after it even when it fails (else it would reconnect forever). */
const opened: ExchangeSocket[] = [];
function sdk(options: ExchangeSocketOptions): ExchangeSocket {
  const s = new ExchangeSocket(options);
  opened.push(s);
  return s;
}

const FAST = { PER_USER_REQUESTS_PER_SECOND: '1000000', WS_SNAPSHOTS_PER_SECOND: '1000' };

function wsUrl(fx: ExchangeFixture): string {
  return fx.server.wsUrl;
}

/** The server's l3 snapshot of each market, through a raw client. */
async function serverBooks(fx: ExchangeFixture): Promise<Map<string, { sequence: number; bids: BookOrder[]; asks: BookOrder[] }>> {
  const ws = await WsTestClient.open(wsUrl(fx));
  const out = new Map<string, { sequence: number; bids: BookOrder[]; asks: BookOrder[] }>();
  try {
    for (const market of MARKETS) {
      ws.send({ op: 'subscribe', channel: 'l3', market });
      const f = await ws.next((x) => x.type === 'snapshot' && x['market'] === market, `snapshot of ${market}`);
      out.set(market, { sequence: f['sequence'] as number, bids: f['bids'] as BookOrder[], asks: f['asks'] as BookOrder[] });
    }
  } finally {
    await ws.close();
  }
  return out;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A `ws` WebSocket that counts what it sends, and can lose the next answers of one op. */
function instrumented(counter: { sent: number; loseAcksOf: string | null; lost: number }): WebSocketConstructor {
  return class extends WebSocket {
    override send(data: never, ...rest: never[]): void {
      counter.sent++;
      (super.send as (...a: unknown[]) => void).call(this, data, ...rest);
    }
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'message' && counter.loseAcksOf !== null) {
        const text = String(args[0]);
        if (text.includes('"type":"ack"') && text.includes(`"op":"${counter.loseAcksOf}"`)) {
          counter.loseAcksOf = null;
          counter.lost++;
          return true;
        }
      }
      return super.emit(event, ...args);
    }
  } as unknown as WebSocketConstructor;
}

describe('TypeScript SDK against the server', function () {
  this.timeout(120_000);
  let fx: ExchangeFixture;
  const traders: Trader[] = [];

  before(async () => {
    fx = await ExchangeFixture.start(FAST);
    for (const m of MARKETS) await fx.market(m);
    for (let i = 0; i < 4; i++) traders.push(await fx.trader(`sdk${i}`));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  after(async () => {
    await fx.stop();
  });

  it('keeps books equal to the server after 3,000 random commands on three markets, with the connection killed twice', async () => {
    const observer = await sdk({ url: wsUrl(fx), markets: MARKETS, initialDelayMs: 20, maxDelayMs: 200 }).connect();
    const sockets = await Promise.all(traders.map((t) => sdk({ url: wsUrl(fx), apiKey: t.api_key }).connect()));
    const random = prng(1313);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const open: { socket: ExchangeSocket; id: string; remaining: number }[] = [];
    const COMMANDS = 3000;
    let done = 0;
    const killAt = new Set([1000, 2000]);
    const one = async (): Promise<void> => {
      const i = Math.floor(random() * sockets.length);
      const socket = sockets[i] as ExchangeSocket;
      const r = random();
      if (r < 0.62 || open.length === 0) {
        const side = random() < 0.5 ? 'BUY' : 'SELL';
        const market = pick(MARKETS);
        const ack = random() < 0.05
          ? await socket.submitOrder({ market, side, type: 'MARKET', quantity: 1 + Math.floor(random() * 3) })
          : await socket.submitOrder({ market, side, price: 95 + Math.floor(random() * 11), quantity: 1 + Math.floor(random() * 5) });
        if (ack.resting) open.push({ socket, id: ack.order.id, remaining: ack.order.remaining });
      } else {
        const k = Math.floor(random() * open.length);
        const o = open[k] as (typeof open)[number];
        if (r < 0.85 || o.remaining < 2) {
          open.splice(k, 1);
          await o.socket.cancelOrder({ order_id: o.id });
        } else {
          o.remaining = Math.max(1, o.remaining - 1);
          await o.socket.amendOrder({ order_id: o.id }, o.remaining);
        }
      }
    };
    while (done < COMMANDS) {
      const batch: Promise<void>[] = [];
      for (let j = 0; j < 25; j++) batch.push(one().catch((e: unknown) => {
        // position limits, orders filled meanwhile, markets without liquidity: refused, nothing changed
        if (!(e instanceof ExchangeError) || e.status === 0) throw e;
      }));
      await Promise.all(batch);
      done += 25;
      if (killAt.has(done)) observer.dropConnection();
    }
    const server = await serverBooks(fx);
    for (const market of MARKETS) {
      const expected = server.get(market) as { sequence: number; bids: BookOrder[]; asks: BookOrder[] };
      expect(expected.sequence).to.be.greaterThan(500);
      const book = observer.book(market) as L3Book;
      await until(() => observer.isConnected && book.sequence === expected.sequence, `${market} at sequence ${expected.sequence} (has ${book.sequence})`);
      expect(book.bids(), market).to.deep.equal(expected.bids);
      expect(book.asks(), market).to.deep.equal(expected.asks);
    }
    // and the same as every trader's open orders, read over REST
    const resting = new Map<string, number>();
    for (const t of traders) for (const o of await fx.openOrders(t)) resting.set(o.id, o.remaining);
    const local = new Map<string, number>();
    for (const market of MARKETS) for (const o of [...(observer.book(market) as L3Book).bids(), ...(observer.book(market) as L3Book).asks()]) local.set(o.order_id, o.remaining);
    expect(local).to.deep.equal(resting);
    expect(observer.stats.reconnects).to.equal(2);
    await Promise.all([observer, ...sockets].map((s) => s.close()));
  });

  it('refuses malformed arguments before sending anything', async () => {
    const counter = { sent: 0, loseAcksOf: null as string | null, lost: 0 };
    const socket = await sdk({ url: wsUrl(fx), apiKey: traders[0]?.api_key as string, WebSocket: instrumented(counter) }).connect();
    const rest = new RestClient({ baseUrl: fx.server.url, apiKey: traders[0]?.api_key as string });
    const sentBefore = counter.sent;
    const bad: [string, () => Promise<unknown>][] = [
      ['fractional price', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 1.5, quantity: 1 })],
      ['zero quantity', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 100, quantity: 0 })],
      ['lower-case side', () => socket.submitOrder({ market: 'AAA-USD', side: 'buy' as 'BUY', price: 100, quantity: 1 })],
      ['empty market', () => socket.submitOrder({ market: '', side: 'BUY', price: 100, quantity: 1 })],
      ['limit order without price', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', quantity: 1 })],
      ['market order with a price', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', type: 'MARKET', price: 100, quantity: 1 })],
      ['unknown field', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 100, quantity: 1, qty: 2 } as never)],
      ['bad client_order_id', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 100, quantity: 1, client_order_id: 'no spaces!' })],
      ['unknown time_in_force', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 100, quantity: 1, time_in_force: 'DAY' as 'GTC' })],
      ['price above 2^53-1', () => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 2 ** 53, quantity: 1 })],
      ['cancel naming both ids', () => socket.cancelOrder({ order_id: 'x', client_order_id: 'y' } as never)],
      ['cancel naming neither', () => socket.cancelOrder({} as never)],
      ['amend to zero', () => socket.amendOrder({ order_id: 'x' }, 0)],
      ['REST: negative quantity', () => rest.submitOrder({ market: 'AAA-USD', side: 'SELL', price: 100, quantity: -1 })],
      ['REST: amend to 1.5', () => rest.amendOrder({ client_order_id: 'abc' }, 1.5)],
    ];
    for (const [what, call] of bad) {
      const err = await call().then(() => null, (e: unknown) => e);
      expect(err, what).to.be.instanceOf(ExchangeError);
      expect((err as ExchangeError).code, what).to.equal('invalid_argument');
      expect((err as ExchangeError).status, what).to.equal(0);
    }
    expect(counter.sent, 'frames sent for malformed calls').to.equal(sentBefore);
    await socket.close();
  });

  it('surfaces the exchange errors with status, code and text, over WebSocket and REST', async () => {
    const socket = await sdk({ url: wsUrl(fx), apiKey: traders[1]?.api_key as string }).connect();
    const rest = new RestClient({ baseUrl: fx.server.url, apiKey: traders[1]?.api_key as string });
    const cases: [() => Promise<unknown>, number, string, string | RegExp][] = [
      [() => socket.submitOrder({ market: 'ZZZ-USD', side: 'BUY', price: 100, quantity: 1 }), 404, 'market_not_configured', 'market ZZZ-USD is not configured'],
      [() => rest.submitOrder({ market: 'ZZZ-USD', side: 'BUY', price: 100, quantity: 1 }), 404, 'market_not_configured', 'market ZZZ-USD is not configured'],
      [() => socket.cancelOrder({ order_id: '00000000-0000-4000-8000-000000000000' }), 404, 'order_not_found', 'order 00000000-0000-4000-8000-000000000000 not found'],
      [() => rest.cancelOrder({ order_id: '00000000-0000-4000-8000-000000000000' }), 404, 'order_not_found', 'order 00000000-0000-4000-8000-000000000000 not found'],
      [() => socket.submitOrder({ market: 'AAA-USD', side: 'BUY', price: 100, quantity: 5000 }), 409, 'position_limit_exceeded', /^projected net position for AAA-USD would be \d+; limit is \+\/-1000$/],
      [() => new RestClient({ baseUrl: fx.server.url, apiKey: 'exch_00000000000000000000000000000000' }).openOrders(), 401, 'invalid_api_key', 'invalid API key'],
    ];
    for (const [call, status, code, text] of cases) {
      const err = await call().then(() => null, (e: unknown) => e);
      expect(err, code).to.be.instanceOf(ExchangeError);
      const e = err as ExchangeError;
      expect({ status: e.status, code: e.code }).to.deep.equal({ status, code });
      if (typeof text === 'string') expect(e.text).to.equal(text);
      else expect(e.text).to.match(text);
    }
    const refused = await sdk({ url: wsUrl(fx), apiKey: 'exch_00000000000000000000000000000000' }).connect().then(() => null, (e: unknown) => e);
    expect(refused).to.be.instanceOf(ExchangeError);
    expect((refused as ExchangeError).code).to.equal('invalid_api_key');
    expect((refused as ExchangeError).status).to.equal(401);
    await socket.close();
  });

  it('fees and keys with scopes: each fill\'s fee and liquidity, a read key from createReadKey that reads and cannot trade, revoked', async () => {
    await fx.admin('POST', '/api/v1/admin/markets', { market_id: 'FEE-USD', base_asset: 'FEE', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true, maker_fee_bps: -2, taker_fee_bps: 5 });
    const maker = new RestClient({ baseUrl: fx.server.url, apiKey: traders[2]?.api_key as string });
    const taker = await sdk({ url: wsUrl(fx), apiKey: traders[3]?.api_key as string }).connect();
    const market = (await maker.markets()).find((m) => m.market_id === 'FEE-USD');
    expect(market).to.deep.include({ maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 1000, max_open_orders: null });
    await maker.submitOrder({ market: 'FEE-USD', side: 'SELL', price: 100, quantity: 10 });
    const ack = await taker.submitOrder({ market: 'FEE-USD', side: 'BUY', price: 100, quantity: 10 });
    expect(ack.fills.map((f) => [f.fee, f.liquidity])).to.deep.equal([[0.5, 'taker']]);
    const fills = await maker.fills({ market: 'FEE-USD' });
    expect(Array.isArray(fills) ? fills.map((f) => [f.fee, f.liquidity]) : null).to.deep.equal([[-0.2, 'maker']]);
    const issued = await maker.createReadKey({ label: 'notebook' });
    expect(issued.key).to.deep.include({ scope: 'read', label: 'notebook', primary: false });
    const reader = new RestClient({ baseUrl: fx.server.url, apiKey: issued.api_key });
    expect((await reader.keys()).map((k) => k.scope)).to.deep.equal(['trade', 'read']);
    const refused = await reader.submitOrder({ market: 'FEE-USD', side: 'BUY', price: 90, quantity: 1 }).then(() => null, (e: unknown) => e);
    expect(refused).to.be.instanceOf(ExchangeError);
    expect({ status: (refused as ExchangeError).status, code: (refused as ExchangeError).code, text: (refused as ExchangeError).text }).to.deep.equal({ status: 403, code: 'insufficient_scope', text: 'key may only read' });
    await maker.revokeKey(issued.key.key_id);
    const gone = await reader.positions().then(() => null, (e: unknown) => e);
    expect((gone as ExchangeError).code).to.equal('invalid_api_key');
    await taker.close();
  });

  it('a submit whose answer is lost times out; retried with the same client_order_id it yields one order', async () => {
    const counter = { sent: 0, loseAcksOf: 'submit_order' as string | null, lost: 0 };
    const trader = traders[2] as Trader;
    const socket = await sdk({ url: wsUrl(fx), apiKey: trader.api_key, requestTimeoutMs: 300, WebSocket: instrumented(counter) }).connect();
    const order = { market: 'BBB-USD', side: 'BUY', price: 50, quantity: 3, client_order_id: 'retry-1' } as const;
    const first = await socket.submitOrder(order).then(() => null, (e: unknown) => e);
    expect(counter.lost).to.equal(1);
    expect((first as ExchangeError).code).to.equal('timeout');
    const retry = await socket.submitOrder(order);
    expect(retry.duplicate).to.equal(true);
    const mine = (await fx.openOrders(trader)).filter((o) => o.client_order_id === 'retry-1');
    expect(mine).to.have.length(1);
    expect(mine[0]?.id).to.equal(retry.order.id);
    await socket.cancelAll();
    await socket.close();
  });
});

describe('TypeScript SDK book', () => {
  const o = (id: string, side: 'BUY' | 'SELL', price: number, remaining: number): BookOrder => ({ order_id: id, side, price, remaining, created_at: '2026-01-01T00:00:00.000000Z' });

  it('applies deltas in sequence, ignores duplicates, reports gaps and keeps time priority through updates', () => {
    const book = new L3Book('X-Y');
    expect(book.apply({ sequence: 1, events: [] })).to.equal('gap');
    book.reset({ sequence: 5, bids: [o('a', 'BUY', 10, 1)], asks: [o('b', 'SELL', 12, 2)] });
    expect(book.apply({ sequence: 6, events: [{ kind: 'order_added', order: o('c', 'BUY', 10, 3) }, { kind: 'order_added', order: o('d', 'BUY', 11, 1) }] })).to.equal('applied');
    expect(book.apply({ sequence: 6, events: [{ kind: 'order_added', order: o('e', 'BUY', 9, 1) }] })).to.equal('duplicate');
    expect(book.apply({ sequence: 8, events: [] })).to.equal('gap');
    expect(book.apply({ sequence: 7, events: [{ kind: 'order_updated', order: o('a', 'BUY', 10, 9) }, { kind: 'order_removed', order_id: 'b', side: 'SELL', price: 12 }] })).to.equal('applied');
    expect(book.bids().map((x) => [x.order_id, x.remaining])).to.deep.equal([['d', 1], ['a', 9], ['c', 3]]);
    expect(book.asks()).to.deep.equal([]);
    expect(book.levels('BUY')).to.deep.equal([{ price: 11, quantity: 1, orders: 1 }, { price: 10, quantity: 12, orders: 2 }]);
    expect(() => book.apply({ sequence: 8, events: [{ kind: 'order_removed', order_id: 'zz', side: 'SELL', price: 1 }] })).to.throw(/unknown order/);
  });
});
