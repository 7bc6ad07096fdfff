// Order entry over REST: submission with every admission check and its precedence, matching, amend
// and cancel with ownership.
import { expect } from 'chai';
import { Client, expectError, TIMESTAMP, UUID, type OrderBody, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

// The base specification's fields, then those trading-extensions.md adds.
const ORDER_KEYS = ['id', 'trader_id', 'market', 'side', 'price', 'quantity', 'remaining', 'created_at', 'client_order_id', 'type', 'time_in_force', 'self_trade_prevention', 'status', 'average_fill_price'];
const FILL_KEYS = ['fill_id', 'market', 'maker_order_id', 'taker_order_id', 'price', 'quantity', 'occurred_at', 'fee', 'liquidity'];

describe('HTTP orders', () => {
  let server: HttpTestServer;
  let c: Client;
  let alice: Trader;
  let bob: Trader;

  before(async () => {
    server = await startHttpTestServer({ PER_USER_REQUESTS_PER_SECOND: '100000' });
    c = new Client(server.url);
    alice = await c.provision('alice');
    bob = await c.provision('bob');
    await c.market({ market_id: 'BTC-USD', tick_size: 10, min_order_quantity: 2, reference_price: 1000 });
    await c.market({ market_id: 'OFF-USD', enabled: false });
    await c.market({ market_id: 'OLD-USD' });
    expect((await c.admin('POST', '/api/v1/admin/markets/OLD-USD/settle', { settlement_price: 5 })).status).to.equal(200);
    await c.market({ market_id: 'BIG-USD', min_order_quantity: 2000 });
    await c.market({ market_id: 'MAX-USD' });
  });
  after(() => server.close());

  describe('POST /api/v1/orders', () => {
    it('rests an order that does not cross: 201 with the order, no fills, resting true', async () => {
      const r = await c.order(alice.api_key, 'BTC-USD', 'SELL', 1010, 5);
      expect(r.status).to.equal(201);
      expect(Object.keys(r.body)).to.deep.equal(['order', 'fills', 'resting']);
      expect(Object.keys(r.body.order)).to.deep.equal(ORDER_KEYS);
      expect(r.body.order).to.include({ trader_id: alice.trader_id, market: 'BTC-USD', side: 'SELL', price: 1010, quantity: 5, remaining: 5 });
      expect(r.body.order.id).to.match(UUID);
      expect(r.body.order.created_at).to.match(TIMESTAMP);
      expect(r.body.fills).to.deep.equal([]);
      expect(r.body.resting).to.equal(true);
      await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${r.body.order.id}`);
    });

    it('matches a crossing order at the maker\'s price and reports the fills', async () => {
      const maker = await c.order(alice.api_key, 'BTC-USD', 'SELL', 1000, 5);
      const taker = await c.order(bob.api_key, 'BTC-USD', 'BUY', 1020, 3);
      expect(taker.status).to.equal(201);
      expect(taker.body.resting).to.equal(false);
      expect(taker.body.order).to.include({ quantity: 3, remaining: 0, price: 1020 });
      expect(taker.body.fills).to.have.length(1);
      const fill = taker.body.fills[0];
      expect(Object.keys(fill ?? {})).to.deep.equal(FILL_KEYS);
      expect(fill).to.include({ market: 'BTC-USD', maker_order_id: maker.body.order.id, taker_order_id: taker.body.order.id, price: 1000, quantity: 3 });
      expect(fill?.fill_id).to.match(UUID);
      expect(fill?.occurred_at).to.equal(taker.body.order.created_at);

      // A partial cross: 2 left at the maker, 4 wanted; the remainder rests.
      const rest = await c.order(bob.api_key, 'BTC-USD', 'BUY', 1000, 4);
      expect(rest.body.fills.map((f) => f.quantity)).to.deep.equal([2]);
      expect(rest.body.order.remaining).to.equal(2);
      expect(rest.body.resting).to.equal(true);

      const bobPositions = await c.trader<{ market: string; net_quantity: number }[]>(bob.api_key, 'GET', '/api/v1/positions');
      expect(bobPositions.body.find((p) => p.market === 'BTC-USD')?.net_quantity).to.equal(5);
      const aliceFills = await c.trader<unknown[]>(alice.api_key, 'GET', '/api/v1/fills');
      expect(aliceFills.body).to.have.length(2);
      await c.trader(bob.api_key, 'DELETE', `/api/v1/orders/${rest.body.order.id}`);
    });

    describe('admission checks, first failing one wins', () => {
      it('trading stopped beats a bad market symbol, a bad tick, a bad price and a huge number', async () => {
        await c.admin('POST', '/api/v1/admin/trading/stop');
        try {
          for (const body of [
            { market: 'BTC-USD', side: 'BUY', price: 1005, quantity: 5 },
            { market: 'nonsense', side: 'BUY', price: 1000, quantity: 5 },
            { market: 'X'.repeat(500), side: 'BUY', price: 1000, quantity: 5 },
            { market: 'BTC-USD', side: 'BUY', price: -1, quantity: 0 },
          ]) {
            expectError(await c.trader(alice.api_key, 'POST', '/api/v1/orders', body), 409, 'trading_disabled', 'trading is disabled');
          }
          // 1e400 parses as Infinity: a value problem, decided after the trading check.
          const huge = await c.request('POST', '/api/v1/orders', { apiKey: alice.api_key, raw: '{"market":"BTC-USD","side":"BUY","price":1e400,"quantity":5}' });
          expectError(huge, 409, 'trading_disabled', 'trading is disabled');
        } finally {
          await c.admin('POST', '/api/v1/admin/trading/start');
        }
      });

      it('an invalid market symbol is 400 invalid_market', async () => {
        expectError(await c.order(alice.api_key, 'BTCUSD', 'BUY', 0, 0), 400, 'invalid_market', 'invalid market symbol: expected BASE-QUOTE');
      });

      it('market checks beat price checks: not configured, disabled, settled', async () => {
        expectError(await c.order(alice.api_key, 'ETH-USD', 'BUY', 0, 0), 404, 'market_not_configured', 'market ETH-USD is not configured');
        expectError(await c.order(alice.api_key, 'OFF-USD', 'BUY', -5, 5), 409, 'market_disabled', 'market OFF-USD is disabled');
        expectError(await c.order(alice.api_key, 'OLD-USD', 'BUY', 1.5, 5), 409, 'market_settled', 'market OLD-USD is settled');
      });

      it('price problems are invalid_price, and price beats quantity', async () => {
        const text = 'price must be an integer between 1 and 9007199254740991';
        for (const price of [0, -10, 10.5, 2 ** 53]) expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', price, 0), 400, 'invalid_price', text);
        const huge = await c.request('POST', '/api/v1/orders', { apiKey: alice.api_key, raw: '{"market":"BTC-USD","side":"BUY","price":1e400,"quantity":5}' });
        expectError(huge, 400, 'invalid_price', text);
      });

      it('a price off the tick is tick_size_violation, and it beats quantity', async () => {
        expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', 1005, 0), 400, 'tick_size_violation', 'price 1005 is not a multiple of the tick size 10');
      });

      it('quantity problems: invalid_quantity, then quantity_below_minimum', async () => {
        const text = 'quantity must be an integer between 1 and 9007199254740991';
        for (const quantity of [0, -1, 2.5, 2 ** 53]) expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', 1000, quantity), 400, 'invalid_quantity', text);
        expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', 1000, 1), 400, 'quantity_below_minimum', 'quantity 1 is below the minimum order quantity 2');
      });

      it('quantity checks beat the position limit', async () => {
        // 1500 would breach +/-1000, but it is below this market's minimum first.
        expectError(await c.order(alice.api_key, 'BIG-USD', 'BUY', 10, 1500), 400, 'quantity_below_minimum', 'quantity 1500 is below the minimum order quantity 2000');
      });

      it('the worst-case position limit counts resting orders of the same side, with the exact text', async () => {
        const carol = await c.provision('carol');
        expectError(await c.order(carol.api_key, 'BTC-USD', 'BUY', 10, 1002), 409, 'position_limit_exceeded', 'projected net position for BTC-USD would be 1002; limit is +/-1000');
        const first = await c.order(carol.api_key, 'BTC-USD', 'BUY', 10, 600);
        expect(first.status).to.equal(201);
        expectError(await c.order(carol.api_key, 'BTC-USD', 'BUY', 10, 402), 409, 'position_limit_exceeded', 'projected net position for BTC-USD would be 1002; limit is +/-1000');
        expect((await c.order(carol.api_key, 'BTC-USD', 'BUY', 10, 400)).status).to.equal(201);
        expectError(await c.order(carol.api_key, 'BTC-USD', 'SELL', 99990, 1002), 409, 'position_limit_exceeded', 'projected net position for BTC-USD would be -1002; limit is +/-1000');
        await c.admin('POST', '/api/v1/admin/users/reset');
      });

      it('a notional beyond 2^53-1 is the spec\'s overflow, a 500', async () => {
        expectError(await c.order(alice.api_key, 'MAX-USD', 'BUY', 2 ** 53 - 1, 2), 500, 'overflow', 'numeric overflow: price * quantity exceeds 2^53-1');
      });

      it('type and shape problems are 400 naming the field', async () => {
        const post = (body: unknown) => c.trader(alice.api_key, 'POST', '/api/v1/orders', body);
        expectError(await post({ market: 'BTC-USD', side: 'BUY', price: '1000', quantity: 5 }), 400, 'invalid_price', 'price: expected number, received string');
        expectError(await post({ market: 'BTC-USD', side: 'BUY', price: 1000 }), 400, 'invalid_quantity', 'quantity is required');
        expectError(await post({ market: 7, side: 'BUY', price: 1000, quantity: 5 }), 400, 'invalid_market', 'market: expected string, received number');
        expectError(await post({ market: 'BTC-USD', price: 1000, quantity: 5 }), 400, 'invalid_request', 'side is required');
        expectError(await post({ market: 'BTC-USD', side: 'HOLD', price: 1000, quantity: 5 }), 400, 'invalid_request', /^side: /);
        expectError(await post([1, 2]), 400, 'invalid_request', 'request body must be a JSON object');
        expectError(await c.request('POST', '/api/v1/orders', { apiKey: alice.api_key }), 400, 'invalid_request', 'request body must be a JSON object');
        expectError(await c.request('POST', '/api/v1/orders', { apiKey: alice.api_key, raw: '{"market": "BTC-USD",' }), 400, 'invalid_request', /^malformed JSON body/);
      });

      it('unknown fields are ignored', async () => {
        const r = await c.trader<{ order: OrderBody }>(alice.api_key, 'POST', '/api/v1/orders', { market: 'BTC-USD', side: 'BUY', price: 10, quantity: 2, client_tag: 'x' });
        expect(r.status).to.equal(201);
        await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${r.body.order.id}`);
      });
    });
  });

  describe('PATCH and DELETE /api/v1/orders/{order_id}', () => {
    let order: OrderBody;
    beforeEach(async () => {
      order = (await c.order(alice.api_key, 'BTC-USD', 'BUY', 500, 10)).body.order;
    });
    afterEach(async () => {
      await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${order.id}`);
    });

    it('amend reduces remaining and answers the order; equal is accepted', async () => {
      const r = await c.trader<{ order: OrderBody }>(alice.api_key, 'PATCH', `/api/v1/orders/${order.id}`, { remaining: 4 });
      expect(r.status).to.equal(200);
      expect(Object.keys(r.body)).to.deep.equal(['order']);
      expect(r.body.order).to.deep.equal({ ...order, remaining: 4 });
      const same = await c.trader<{ order: OrderBody }>(alice.api_key, 'PATCH', `/api/v1/orders/${order.id}`, { remaining: 4 });
      expect(same.status).to.equal(200);
      expect(same.body.order.remaining).to.equal(4);
    });

    it('amend refusals: invalid_remaining, invalid_amend, order_not_owned, order_not_found', async () => {
      const patch = (key: string, id: string, body: unknown) => c.trader(key, 'PATCH', `/api/v1/orders/${id}`, body);
      const remainingText = 'remaining must be an integer greater than 0';
      for (const remaining of [0, -3, 1.5]) expectError(await patch(alice.api_key, order.id, { remaining }), 400, 'invalid_remaining', remainingText);
      expectError(await patch(alice.api_key, order.id, {}), 400, 'invalid_remaining', 'remaining is required');
      expectError(await patch(alice.api_key, order.id, { remaining: 'x' }), 400, 'invalid_remaining', 'remaining: expected number, received string');
      expectError(await patch(alice.api_key, order.id, { remaining: 11 }), 400, 'invalid_amend', 'amend can only reduce remaining: 11 > current 10');
      expectError(await patch(bob.api_key, order.id, { remaining: 5 }), 403, 'order_not_owned', `order ${order.id} belongs to another trader`);
      const unknown = '3f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b';
      expectError(await patch(alice.api_key, unknown, { remaining: 5 }), 404, 'order_not_found', `order ${unknown} not found`);
      expectError(await patch(alice.api_key, 'not-a-uuid', { remaining: 5 }), 400, 'invalid_request', 'order_id: expected a UUID');
    });

    it('cancel answers the cancelled order; a second cancel is 404; another trader gets 403', async () => {
      expectError(await c.trader(bob.api_key, 'DELETE', `/api/v1/orders/${order.id}`), 403, 'order_not_owned', `order ${order.id} belongs to another trader`);
      const r = await c.trader<{ order: OrderBody }>(alice.api_key, 'DELETE', `/api/v1/orders/${order.id}`);
      expect(r.status).to.equal(200);
      // The order as it was when canceled (remaining = the canceled quantity), now with status canceled.
      expect(r.body).to.deep.equal({ order: { ...order, status: 'canceled' } });
      expectError(await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${order.id}`), 404, 'order_not_found', `order ${order.id} not found`);
      expectError(await c.trader(alice.api_key, 'DELETE', '/api/v1/orders/123'), 400, 'invalid_request', 'order_id: expected a UUID');
    });

    it('cancel and amend work while trading is stopped and the market disabled', async () => {
      await c.admin('POST', '/api/v1/admin/trading/stop');
      await c.admin('PATCH', '/api/v1/admin/markets/BTC-USD', { enabled: false });
      try {
        expect((await c.trader(alice.api_key, 'PATCH', `/api/v1/orders/${order.id}`, { remaining: 3 })).status).to.equal(200);
        expect((await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${order.id}`)).status).to.equal(200);
      } finally {
        await c.admin('PATCH', '/api/v1/admin/markets/BTC-USD', { enabled: true });
        await c.admin('POST', '/api/v1/admin/trading/start');
      }
    });

    it('a filled order is not found', async () => {
      await c.order(bob.api_key, 'BTC-USD', 'SELL', 500, 10);
      expectError(await c.trader(alice.api_key, 'DELETE', `/api/v1/orders/${order.id}`), 404, 'order_not_found');
    });
  });
});
