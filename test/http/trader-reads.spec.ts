// The trader's read routes: profile, positions, portfolio, leaderboard, open orders and fills.
import { expect } from 'chai';
import { Client, expectError, type FillBody, type OrderBody, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

const POSITION_KEYS = ['market', 'net_quantity', 'average_entry_price', 'realized_pnl', 'fees', 'updated_at'];

describe('HTTP trader reads', () => {
  let server: HttpTestServer;
  let c: Client;
  let a: Trader;
  let b: Trader;
  let restingEth: OrderBody;

  before(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    a = await c.provision('anna');
    b = await c.provision('ben');
    await c.market({ market_id: 'BTC-USD', reference_price: 100 });
    await c.market({ market_id: 'ETH-USD' });
    await c.order(a.api_key, 'BTC-USD', 'SELL', 100, 4);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 100, 4);
    await c.order(a.api_key, 'BTC-USD', 'SELL', 130, 1);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 90, 1);
    restingEth = (await c.order(a.api_key, 'ETH-USD', 'BUY', 7, 3)).body.order;
  });
  after(() => server.close());

  it('GET /api/v1/positions: the caller\'s positions by market', async () => {
    const r = await c.trader<Record<string, unknown>[]>(b.api_key, 'GET', '/api/v1/positions');
    expect(r.status).to.equal(200);
    expect(r.body).to.have.length(1);
    expect(Object.keys(r.body[0] ?? {})).to.deep.equal(POSITION_KEYS);
    expect(r.body[0]).to.include({ market: 'BTC-USD', net_quantity: 4, average_entry_price: 100, realized_pnl: 0 });
  });

  it('GET /api/v1/portfolio: trader_id, position_limit 1000, positions', async () => {
    const r = await c.trader<Record<string, unknown>>(a.api_key, 'GET', '/api/v1/portfolio');
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body)).to.deep.equal(['trader_id', 'position_limit', 'position_limits', 'positions']);
    expect(r.body['trader_id']).to.equal(a.trader_id);
    expect(r.body['position_limit']).to.equal(1000);
    expect(r.body['positions']).to.deep.equal((await c.trader(a.api_key, 'GET', '/api/v1/positions')).body);
  });

  it('GET /api/v1/leaderboard: all rows, or ?limit=N; a bad limit is 400', async () => {
    const all = await c.trader<{ rank: number; username: string; net_pnl: number }[]>(a.api_key, 'GET', '/api/v1/leaderboard');
    expect(all.status).to.equal(200);
    // Marked at the mid of 90 and 130: ben +40, anna -40.
    expect(all.body.map((r) => [r.rank, r.username, r.net_pnl])).to.deep.equal([
      [1, 'ben', 40],
      [2, 'anna', -40],
    ]);
    expect((await c.trader<unknown[]>(a.api_key, 'GET', '/api/v1/leaderboard?limit=1')).body).to.deep.equal([all.body[0]]);
    expect((await c.trader<unknown[]>(a.api_key, 'GET', '/api/v1/leaderboard?limit=0')).body).to.deep.equal([]);
    for (const bad of ['-1', 'ten', '1.5', '']) {
      expectError(await c.trader(a.api_key, 'GET', `/api/v1/leaderboard?limit=${bad}`), 400, 'invalid_query', 'limit: expected a non-negative integer');
    }
  });

  it('GET /api/v1/open-orders: the caller\'s resting orders, optionally of one market', async () => {
    const all = await c.trader<OrderBody[]>(a.api_key, 'GET', '/api/v1/open-orders');
    expect(all.status).to.equal(200);
    expect(all.body.map((o) => [o.market, o.side, o.price, o.remaining])).to.deep.equal([
      ['BTC-USD', 'SELL', 130, 1],
      ['ETH-USD', 'BUY', 7, 3],
    ]);
    expect((await c.trader(a.api_key, 'GET', '/api/v1/open-orders?market=ETH-USD')).body).to.deep.equal([restingEth]);
    expect((await c.trader(a.api_key, 'GET', '/api/v1/open-orders?market=XRP-USD')).body).to.deep.equal([]);
    expectError(await c.trader(a.api_key, 'GET', '/api/v1/open-orders?market=eth'), 400, 'invalid_market', 'market: expected BASE-QUOTE');
  });

  it('GET /api/v1/fills: the caller\'s fills as maker and taker, optionally of one market', async () => {
    const fa = await c.trader<FillBody[]>(a.api_key, 'GET', '/api/v1/fills');
    const fb = await c.trader<FillBody[]>(b.api_key, 'GET', '/api/v1/fills');
    expect(fa.status).to.equal(200);
    expect(fa.body).to.have.length(1);
    // The same fill, each side with its own liquidity (and fee: none in a market without fees).
    expect(fa.body.map(({ liquidity: _l, ...f }) => f)).to.deep.equal(fb.body.map(({ liquidity: _l, ...f }) => f));
    expect(fa.body[0]).to.include({ market: 'BTC-USD', price: 100, quantity: 4, fee: 0 });
    expect([fa.body[0]?.liquidity, fb.body[0]?.liquidity].sort()).to.deep.equal(['maker', 'taker']);
    expect((await c.trader(a.api_key, 'GET', '/api/v1/fills?market=ETH-USD')).body).to.deep.equal([]);
    expectError(await c.trader(a.api_key, 'GET', '/api/v1/fills?market=nope'), 400, 'invalid_market');
  });
});
