// trading-extensions.md over REST: order types and time in force, client order ids (idempotent
// submission, lookups, amend and cancel by client id), cancel-all, the trade tape, candles, and paging.
import { expect } from 'chai';
import { Client, expectError, type Reply, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

interface Order {
  id: string;
  price: number | null;
  quantity: number;
  remaining: number;
  status: string;
  type: string;
  time_in_force: string;
  self_trade_prevention: string;
  client_order_id: string | null;
  average_fill_price: number | null;
}
interface Submit {
  order: Order;
  fills: { fill_id: string; price: number; quantity: number }[];
  resting: boolean;
  duplicate?: boolean;
}

describe('HTTP trading extensions', () => {
  let server: HttpTestServer;
  let c: Client;
  let alice: Trader;
  let bob: Trader;
  let carol: Trader;

  const post = (t: Trader, body: Record<string, unknown>): Promise<Reply<Submit>> => c.trader<Submit>(t.api_key, 'POST', '/api/v1/orders', body);
  const hash = async (): Promise<string> => ((await c.admin<{ state_hash: string }>('GET', '/api/v1/admin/state-hash')).body.state_hash);

  before(async () => {
    server = await startHttpTestServer({ PER_USER_REQUESTS_PER_SECOND: '100000' });
    c = new Client(server.url);
    alice = await c.provision('alice');
    bob = await c.provision('bob');
    carol = await c.provision('carol');
    for (const m of ['STP-USD', 'ABC-USD', 'MKT-USD', 'CID-USD', 'TAPE-USD', 'ALL-USD', 'OTHER-USD']) await c.market({ market_id: m, reference_price: 100 });
  });
  after(() => server.close());

  describe('order types and time in force', () => {
    it('a market order takes across levels, cancels the rest, shows price null and the average fill price', async () => {
      await post(bob, { market: 'MKT-USD', side: 'SELL', price: 101, quantity: 2 });
      await post(bob, { market: 'MKT-USD', side: 'SELL', price: 103, quantity: 2 });
      const r = await post(alice, { market: 'MKT-USD', side: 'BUY', type: 'MARKET', quantity: 5 });
      expect(r.status).to.equal(201);
      expect(r.body.order).to.include({ price: null, type: 'MARKET', time_in_force: 'IOC', status: 'canceled', remaining: 1, average_fill_price: 102 });
      expect(r.body.fills.map((f) => f.price)).to.deep.equal([101, 103]);
      expect(r.body.resting).to.equal(false);
    });

    it('a market order against an empty side is 409 no_liquidity and changes nothing', async () => {
      const before = await hash();
      expectError(await post(alice, { market: 'MKT-USD', side: 'BUY', type: 'MARKET', quantity: 1 }), 409, 'no_liquidity', 'no liquidity');
      expect(await hash()).to.equal(before);
    });

    it('IOC, FOK and POST_ONLY answer as the extensions say', async () => {
      await post(bob, { market: 'ABC-USD', side: 'SELL', price: 100, quantity: 3 });
      const ioc = await post(alice, { market: 'ABC-USD', side: 'BUY', price: 100, quantity: 5, time_in_force: 'IOC' });
      expect(ioc.body.order).to.include({ status: 'canceled', remaining: 2, time_in_force: 'IOC' });
      expect(ioc.body.resting).to.equal(false);
      await post(bob, { market: 'ABC-USD', side: 'SELL', price: 100, quantity: 3 });
      const fokFail = await post(alice, { market: 'ABC-USD', side: 'BUY', price: 100, quantity: 4, time_in_force: 'FOK' });
      expect(fokFail.status).to.equal(201);
      expect(fokFail.body.order).to.include({ status: 'expired', remaining: 4 });
      expect(fokFail.body.fills).to.deep.equal([]);
      const fok = await post(alice, { market: 'ABC-USD', side: 'BUY', price: 100, quantity: 3, time_in_force: 'FOK' });
      expect(fok.body.order).to.include({ status: 'filled', remaining: 0, average_fill_price: 100 });
      await post(bob, { market: 'ABC-USD', side: 'SELL', price: 105, quantity: 1 });
      const before = await hash();
      expectError(await post(alice, { market: 'ABC-USD', side: 'BUY', price: 105, quantity: 1, time_in_force: 'POST_ONLY' }), 409, 'post_only_would_take', 'post-only order would take liquidity');
      expect(await hash()).to.equal(before);
      const maker = await post(alice, { market: 'ABC-USD', side: 'BUY', price: 104, quantity: 1, time_in_force: 'POST_ONLY' });
      expect(maker.body.order).to.include({ status: 'open', remaining: 1 });
      expect(maker.body.resting).to.equal(true);
    });

    it('self-trade prevention cancels the trader\'s own resting order (CANCEL_MAKER)', async () => {
      const own = await post(carol, { market: 'STP-USD', side: 'SELL', price: 110, quantity: 2 });
      const r = await post(carol, { market: 'STP-USD', side: 'BUY', price: 110, quantity: 2, time_in_force: 'IOC', self_trade_prevention: 'CANCEL_MAKER' });
      expect(r.body.fills).to.deep.equal([]);
      const gone = await c.trader<{ order: Order }>(carol.api_key, 'GET', `/api/v1/orders/${own.body.order.id}`);
      expect(gone.body.order).to.include({ status: 'canceled', remaining: 2 });
    });

    it('bad input is a clear 400 naming the field and changes nothing', async () => {
      const before = await hash();
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ type: 'STOP' }, 'invalid_order_type', /^type: /],
        [{ time_in_force: 'GTD' }, 'invalid_time_in_force', /^time_in_force: /],
        [{ self_trade_prevention: 'DECREMENT' }, 'invalid_self_trade_prevention', /^self_trade_prevention: /],
        [{ client_order_id: 'has space' }, 'invalid_client_order_id', /^client_order_id: /],
        [{ client_order_id: 'x'.repeat(65) }, 'invalid_client_order_id', /^client_order_id: /],
        [{ client_order_id: '' }, 'invalid_client_order_id', /^client_order_id: /],
        [{ type: 'MARKET' }, 'invalid_price', /^price is not allowed on a market order$/],
        [{ type: 'MARKET', price: undefined, time_in_force: 'GTC' }, 'invalid_time_in_force', /^market orders take time_in_force IOC$/],
        [{ price: undefined }, 'invalid_price', /^price is required$/],
      ];
      for (const [change, code, text] of cases) {
        const r = await post(alice, { market: 'ABC-USD', side: 'BUY', price: 90, quantity: 1, ...change });
        expectError(r, 400, code, text);
      }
      expect(await hash()).to.equal(before);
    });
  });

  describe('client order ids', () => {
    it('a repeat with the same parameters is 200 with the first order as it is now and all its fills, appending nothing', async () => {
      const first = await post(alice, { market: 'CID-USD', side: 'BUY', price: 100, quantity: 4, client_order_id: 'bot.1:a' });
      expect(first.status).to.equal(201);
      expect(first.body.order.client_order_id).to.equal('bot.1:a');
      await post(bob, { market: 'CID-USD', side: 'SELL', price: 100, quantity: 1 });
      const head = (await c.admin<{ seq: number }>('GET', '/api/v1/admin/state-hash')).body.seq;
      const again = await post(alice, { market: 'CID-USD', side: 'BUY', price: 100, quantity: 4, client_order_id: 'bot.1:a' });
      expect(again.status).to.equal(200);
      expect(again.body.duplicate).to.equal(true);
      expect(again.body.order).to.include({ id: first.body.order.id, remaining: 3, status: 'open' });
      expect(again.body.fills).to.have.length(1);
      expect(again.body.resting).to.equal(true);
      expect((await c.admin<{ seq: number }>('GET', '/api/v1/admin/state-hash')).body.seq).to.equal(head);
    });

    it('the same id with other parameters is 409 duplicate_client_order_id and changes nothing', async () => {
      const before = await hash();
      expectError(await post(alice, { market: 'CID-USD', side: 'BUY', price: 99, quantity: 4, client_order_id: 'bot.1:a' }), 409, 'duplicate_client_order_id', 'client_order_id already used');
      expect(await hash()).to.equal(before);
    });

    it('lookups by id and by client id find the caller\'s orders in any status; another trader\'s is 404', async () => {
      const o = await post(alice, { market: 'CID-USD', side: 'SELL', price: 200, quantity: 1, client_order_id: 'look' });
      await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${o.body.order.id}`);
      const byId = await c.trader<{ order: Order }>(alice.api_key, 'GET', `/api/v1/orders/${o.body.order.id}`);
      expect(byId.status).to.equal(200);
      expect(byId.body.order).to.include({ status: 'canceled', client_order_id: 'look' });
      const byCid = await c.trader<{ order: Order }>(alice.api_key, 'GET', '/api/v1/orders/by-client-id/look');
      expect(byCid.body.order.id).to.equal(o.body.order.id);
      expectError(await c.trader(bob.api_key, 'GET', `/api/v1/orders/${o.body.order.id}`), 404, 'order_not_found');
      expectError(await c.trader(bob.api_key, 'GET', '/api/v1/orders/by-client-id/look'), 404, 'order_not_found');
      expectError(await c.trader(alice.api_key, 'GET', `/api/v1/orders/by-client-id/${'y'.repeat(65)}`), 400, 'invalid_client_order_id');
    });

    it('PATCH and DELETE by client id act on the caller\'s own open order only (404, never 403)', async () => {
      await post(alice, { market: 'CID-USD', side: 'SELL', price: 300, quantity: 5, client_order_id: 'edit' });
      const amended = await c.trader<{ order: Order }>(alice.api_key, 'PATCH', '/api/v1/orders/by-client-id/edit', { remaining: 2 });
      expect(amended.body.order).to.include({ remaining: 2, status: 'open' });
      expectError(await c.trader(bob.api_key, 'DELETE', '/api/v1/orders/by-client-id/edit'), 404, 'order_not_found');
      const canceled = await c.trader<{ order: Order }>(alice.api_key, 'DELETE', '/api/v1/orders/by-client-id/edit');
      expect(canceled.body.order).to.include({ remaining: 2, status: 'canceled' });
      expectError(await c.trader(alice.api_key, 'DELETE', '/api/v1/orders/by-client-id/edit'), 404, 'order_not_found');
    });

    it('the same client_order_id sent many times at once yields exactly one order', async () => {
      const body = { market: 'CID-USD', side: 'BUY', price: 50, quantity: 1, client_order_id: 'race' };
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 === 0 ? alice : alice, body)));
      const ids = new Set(replies.map((r) => r.body.order.id));
      expect(ids.size).to.equal(1);
      expect(replies.filter((r) => r.status === 201)).to.have.length(1);
      expect(replies.filter((r) => r.status === 200 && r.body.duplicate === true)).to.have.length(19);
    });
  });

  describe('cancel-all', () => {
    it('cancels every open order of the caller in one event, oldest first; by market; nothing open is an empty list', async () => {
      const a = await post(carol, { market: 'ALL-USD', side: 'BUY', price: 90, quantity: 1 });
      const b = await post(carol, { market: 'OTHER-USD', side: 'BUY', price: 90, quantity: 1 });
      const d = await post(carol, { market: 'ALL-USD', side: 'SELL', price: 190, quantity: 2 });
      const head = (await c.admin<{ seq: number }>('GET', '/api/v1/admin/state-hash')).body.seq;
      const one = await c.trader<{ canceled: Order[] }>(carol.api_key, 'DELETE', '/api/v1/orders?market=OTHER-USD');
      expect(one.body.canceled.map((o) => o.id)).to.deep.equal([b.body.order.id]);
      const all = await c.trader<{ canceled: Order[] }>(carol.api_key, 'DELETE', '/api/v1/orders');
      expect(all.status).to.equal(200);
      expect(all.body.canceled.map((o) => o.id)).to.include.members([a.body.order.id, d.body.order.id]);
      expect(all.body.canceled.every((o) => o.status === 'canceled')).to.equal(true);
      expect((await c.admin<{ seq: number }>('GET', '/api/v1/admin/state-hash')).body.seq).to.equal(head + 2);
      const none = await c.trader<{ canceled: Order[] }>(carol.api_key, 'DELETE', '/api/v1/orders');
      expect(none.body.canceled).to.deep.equal([]);
      expectError(await c.trader(carol.api_key, 'DELETE', '/api/v1/orders?market=bad'), 400, 'invalid_market');
    });
  });

  describe('market data and paging', () => {
    before(async () => {
      for (let i = 0; i < 25; i++) {
        await post(bob, { market: 'TAPE-USD', side: 'SELL', price: 100 + (i % 3), quantity: 2 });
        await post(alice, { market: 'TAPE-USD', side: 'BUY', price: 105, quantity: i % 2 === 0 ? 2 : 1 });
      }
    });

    it('pages through the trade tape newest first, every trade exactly once', async () => {
      const seen: { trade_id: string; seq: number }[] = [];
      let next: string | null = null;
      do {
        const path: string = `/api/v1/markets/TAPE-USD/trades?limit=7${next === null ? '' : `&before=${encodeURIComponent(next)}`}`;
        const r = await c.request<{ trades: { trade_id: string; seq: number; taker_side: string }[]; next: string | null }>('GET', path);
        expect(r.status).to.equal(200);
        expect(r.body.trades.length).to.be.at.most(7);
        seen.push(...r.body.trades);
        next = r.body.next;
      } while (next !== null);
      expect(new Set(seen.map((t) => t.trade_id)).size).to.equal(seen.length);
      for (let i = 1; i < seen.length; i++) expect((seen[i] as { seq: number }).seq).to.be.at.most((seen[i - 1] as { seq: number }).seq);
      const all = await c.request<{ trades: unknown[]; next: null }>('GET', '/api/v1/markets/TAPE-USD/trades?limit=1000');
      expect(all.body.trades).to.have.length(seen.length);
      expect(all.body.next).to.equal(null);
      expect(seen.length).to.be.greaterThan(25);
    });

    it('candles from the trades, oldest first, with volume and count', async () => {
      const r = await c.request<{ candles: { start: string; open: number; high: number; low: number; close: number; volume: number; trades: number }[] }>('GET', '/api/v1/markets/TAPE-USD/candles?interval=1h');
      expect(r.status).to.equal(200);
      const tape = await c.request<{ trades: { quantity: number }[] }>('GET', '/api/v1/markets/TAPE-USD/trades?limit=1000');
      const volume = r.body.candles.reduce((n, k) => n + k.volume, 0);
      expect(volume).to.equal(tape.body.trades.reduce((n, t) => n + t.quantity, 0));
      for (const k of r.body.candles) {
        expect(k.start).to.match(/T\d{2}:00:00\.000000Z$/);
        expect(k.low).to.be.at.most(Math.min(k.open, k.close));
        expect(k.high).to.be.at.least(Math.max(k.open, k.close));
      }
    });

    it('pages fills and open orders newest first; without parameters the plain arrays stay', async () => {
      const plain = await c.trader<unknown[]>(alice.api_key, 'GET', '/api/v1/fills');
      expect(Array.isArray(plain.body)).to.equal(true);
      const ids: string[] = [];
      let next: string | null = null;
      do {
        const q: string = next === null ? '?limit=4' : `?limit=4&before=${encodeURIComponent(next)}`;
        const r = await c.trader<{ fills: { fill_id: string }[]; next: string | null }>(alice.api_key, 'GET', `/api/v1/fills${q}`);
        ids.push(...r.body.fills.map((f) => f.fill_id));
        next = r.body.next;
      } while (next !== null);
      expect(ids).to.deep.equal((plain.body as { fill_id: string }[]).map((f) => f.fill_id).reverse());
      const open = await c.trader<{ orders: unknown[]; next: string | null }>(bob.api_key, 'GET', '/api/v1/open-orders?limit=1000');
      expect(open.body.orders.length).to.equal(((await c.trader<unknown[]>(bob.api_key, 'GET', '/api/v1/open-orders')).body).length);
    });

    it('refuses limit 0 and 1001, tampered cursors, unknown markets and candle ranges over the cap', async () => {
      const before = await hash();
      for (const limit of ['0', '1001', '-1', 'ten', '']) {
        expectError(await c.request('GET', `/api/v1/markets/TAPE-USD/trades?limit=${limit}`), 400, 'invalid_limit', 'invalid limit');
        expectError(await c.trader(alice.api_key, 'GET', `/api/v1/fills?limit=${limit}`), 400, 'invalid_limit', 'invalid limit');
      }
      const page = await c.request<{ next: string }>('GET', '/api/v1/markets/TAPE-USD/trades?limit=2');
      const good = page.body.next;
      const tampered = [good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A'), 'x' + good, good.replace(/^./, (ch) => (ch === 'W' ? 'X' : 'W')), 'garbage', '.', ''];
      for (const t of tampered) expectError(await c.request('GET', `/api/v1/markets/TAPE-USD/trades?before=${encodeURIComponent(t)}`), 400, 'invalid_cursor', 'invalid cursor');
      // A cursor of one list is no cursor of another.
      expectError(await c.trader(alice.api_key, 'GET', `/api/v1/fills?before=${encodeURIComponent(good)}`), 400, 'invalid_cursor');
      expectError(await c.request('GET', '/api/v1/markets/NOPE-USD/trades'), 404, 'market_not_configured');
      expectError(await c.request('GET', '/api/v1/markets/bad/trades'), 400, 'invalid_market');
      expectError(await c.request('GET', '/api/v1/markets/TAPE-USD/candles?interval=1m&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z'), 400, 'invalid_range');
      expectError(await c.request('GET', '/api/v1/markets/TAPE-USD/candles?interval=2m'), 400, 'invalid_query');
      expectError(await c.request('GET', '/api/v1/markets/TAPE-USD/candles?from=yesterday'), 400, 'invalid_query');
      expect((await c.request('GET', '/api/v1/markets/TAPE-USD/candles?interval=1m&from=2026-01-01T00:00:00Z&to=2026-01-01T16:40:00Z')).status).to.equal(200);
      expect(await hash()).to.equal(before);
    });
  });
});
