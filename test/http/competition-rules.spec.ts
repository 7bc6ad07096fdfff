// The rules per market through the real service (competition-rules.md, "Rules per market"): set on
// create, PATCH and config load, shown on every Market view; out of range is 400 naming the field and
// changes nothing; fees on every fill view, positions and the leaderboard (JSON and CSV); the position
// limit and the cap on open orders refused with the spec's texts and codes.
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { stateHash } from '../../src/projections/state-hash.ts';
import { Client, expectError, type FillBody, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

interface MarketBody {
  readonly market_id: string;
  readonly maker_fee_bps: number;
  readonly taker_fee_bps: number;
  readonly position_limit: number;
  readonly max_open_orders: number | null;
}

const RULES = { maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 50, max_open_orders: 2 };

describe('HTTP market rules, fees and limits', function () {
  this.timeout(30_000);
  let server: HttpTestServer;
  let c: Client;
  let alice: Trader;
  let bob: Trader;
  const hash = (): string => stateHash(server.context.service.state);

  beforeEach(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    alice = await c.provision('alice');
    bob = await c.provision('bob');
  });
  afterEach(() => server.close());

  it('create, PATCH and config load set the rules; every Market view shows them, defaults included', async () => {
    await c.market({ market_id: 'BTC-USD', ...RULES });
    await c.market({ market_id: 'ETH-USD' });
    const markets = (await c.request<MarketBody[]>('GET', '/api/v1/markets')).body;
    expect(markets.map((m) => [m.market_id, m.maker_fee_bps, m.taker_fee_bps, m.position_limit, m.max_open_orders])).to.deep.equal([
      ['BTC-USD', -2, 5, 50, 2],
      ['ETH-USD', 0, 0, 1000, null],
    ]);
    const patched = await c.admin<MarketBody>('PATCH', '/api/v1/admin/markets/BTC-USD', { taker_fee_bps: 10, max_open_orders: null });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.deep.include({ maker_fee_bps: -2, taker_fee_bps: 10, position_limit: 50, max_open_orders: null });
    const loaded = await c.admin<{ markets: MarketBody[] }>('POST', '/api/v1/admin/config/load', {
      markets: [{ market_id: 'SOL-USD', base_asset: 'SOL', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true, position_limit: 250, maker_fee_bps: 1 }],
    });
    expect(loaded.status).to.equal(200);
    expect(loaded.body.markets.find((m) => m.market_id === 'SOL-USD')).to.deep.include({ position_limit: 250, maker_fee_bps: 1, taker_fee_bps: 0, max_open_orders: null });
    const admin = await c.admin<{ markets: MarketBody[] }>('GET', '/api/v1/admin/state');
    expect(admin.body.markets.find((m) => m.market_id === 'BTC-USD')).to.deep.include({ taker_fee_bps: 10 });
  });

  it('a value out of range is 400 invalid_market_rule naming the field, and nothing changes (create, PATCH, config load)', async () => {
    await c.market({ market_id: 'BTC-USD' });
    const before = hash();
    const cases: [Record<string, unknown>, string][] = [
      [{ maker_fee_bps: 101 }, 'maker_fee_bps'],
      [{ maker_fee_bps: -101 }, 'maker_fee_bps'],
      [{ taker_fee_bps: -1 }, 'taker_fee_bps'],
      [{ taker_fee_bps: 2.5 }, 'taker_fee_bps'],
      [{ position_limit: 0 }, 'position_limit'],
      [{ position_limit: 1e300 }, 'position_limit'],
      [{ max_open_orders: 0 }, 'max_open_orders'],
      [{ max_open_orders: -3 }, 'max_open_orders'],
    ];
    for (const [bad, field] of cases) {
      const definition = { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true, ...bad };
      expectError(await c.admin('POST', '/api/v1/admin/markets', definition), 400, 'invalid_market_rule', new RegExp(`^${field} must be`));
      expectError(await c.admin('PATCH', '/api/v1/admin/markets/BTC-USD', bad), 400, 'invalid_market_rule', new RegExp(`^${field} must be`));
      expectError(await c.admin('POST', '/api/v1/admin/config/load', { markets: [definition] }), 400, 'invalid_market_rule', new RegExp(`^${field} must be`));
    }
    // A wrong type is the schema's 400, naming the field too, with the rules' code.
    expectError(await c.admin('PATCH', '/api/v1/admin/markets/BTC-USD', { taker_fee_bps: 'five' }), 400, 'invalid_market_rule', /^taker_fee_bps: /);
    expect(hash()).to.equal(before);
  });

  it('fees: each fill view carries the caller\'s fee and liquidity; positions and the leaderboard (JSON and CSV) are after fees', async () => {
    await c.market({ market_id: 'BTC-USD', reference_price: 100, ...RULES, max_open_orders: null });
    expect((await c.order(bob.api_key, 'BTC-USD', 'SELL', 100, 10)).status).to.equal(201);
    const taken = await c.order(alice.api_key, 'BTC-USD', 'BUY', 100, 10);
    expect(taken.body.fills.map((f) => [f.fee, f.liquidity])).to.deep.equal([[0.5, 'taker']]);
    const aliceFills = await c.trader<FillBody[]>(alice.api_key, 'GET', '/api/v1/fills');
    const bobFills = await c.trader<FillBody[]>(bob.api_key, 'GET', '/api/v1/fills');
    expect(aliceFills.body.map((f) => [f.fee, f.liquidity])).to.deep.equal([[0.5, 'taker']]);
    expect(bobFills.body.map((f) => [f.fee, f.liquidity])).to.deep.equal([[-0.2, 'maker']]);
    const paged = await c.trader<{ fills: FillBody[] }>(bob.api_key, 'GET', '/api/v1/fills?limit=10');
    expect(paged.body.fills.map((f) => [f.fee, f.liquidity])).to.deep.equal([[-0.2, 'maker']]);
    const positions = await c.trader<{ market: string; realized_pnl: number; fees: number }[]>(alice.api_key, 'GET', '/api/v1/positions');
    expect(positions.body).to.have.length(1);
    expect(positions.body[0]).to.deep.include({ realized_pnl: -0.5, fees: 0.5 });
    const portfolio = await c.trader<{ position_limit: number; position_limits: Record<string, number> }>(alice.api_key, 'GET', '/api/v1/portfolio');
    expect(portfolio.body).to.deep.include({ position_limit: 1000, position_limits: { 'BTC-USD': 50 } });
    const board = await c.trader<{ username: string; net_pnl: number; realized_pnl: number }[]>(alice.api_key, 'GET', '/api/v1/leaderboard');
    expect(board.body.map((r) => [r.username, r.realized_pnl, r.net_pnl])).to.deep.equal([
      ['bob', 0.2, 0.2],
      ['alice', -0.5, -0.5],
    ]);
    const csv = await c.request<string>('GET', '/api/v1/admin/leaderboard?format=csv', { admin: true });
    const rows = parse(csv.body, { columns: true }) as { username: string; realized_pnl: string; net_pnl: string }[];
    expect(rows.map((r) => [r.username, r.realized_pnl, r.net_pnl])).to.deep.equal([
      ['bob', '0.2', '0.2'],
      ['alice', '-0.5', '-0.5'],
    ]);
    // The official standings freeze the leaderboard after fees.
    const frozen = await c.admin<{ rows: { username: string; net_pnl: number }[] }>('POST', '/api/v1/admin/leaderboard/freeze', { label: 'day 1' });
    expect(frozen.body.rows.map((r) => [r.username, r.net_pnl])).to.deep.equal([
      ['bob', 0.2],
      ['alice', -0.5],
    ]);
  });

  it('position_limit: 409 position_limit_exceeded with the market\'s bound in the text; max_open_orders: 409 too_many_open_orders', async () => {
    await c.market({ market_id: 'BTC-USD', ...RULES });
    const before = hash();
    expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', 90, 51), 409, 'position_limit_exceeded', 'projected net position for BTC-USD would be 51; limit is +/-50');
    expect((await c.order(alice.api_key, 'BTC-USD', 'BUY', 90, 1)).status).to.equal(201);
    expect((await c.order(alice.api_key, 'BTC-USD', 'BUY', 91, 1)).status).to.equal(201);
    const seq = server.context.service.state.seq;
    expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', 92, 1), 409, 'too_many_open_orders', 'too many open orders: max 2 in BTC-USD');
    expect(server.context.service.state.seq).to.equal(seq);
    // An IOC order never rests, so it never counts.
    const ioc = await c.trader(alice.api_key, 'POST', '/api/v1/orders', { market: 'BTC-USD', side: 'BUY', price: 92, quantity: 1, time_in_force: 'IOC' });
    expect(ioc.status).to.equal(201);
    expect(before).to.not.equal(hash());
  });
});
