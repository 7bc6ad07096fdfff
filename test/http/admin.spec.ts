// Operator routes: accounts, controls, messages, markets, settlement, config, state and the event export.
import { expect } from 'chai';
import { Client, expectError, TIMESTAMP, UUID, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

const MARKET_KEYS = ['market_id', 'display_name', 'base_asset', 'quote_asset', 'tick_size', 'min_order_quantity', 'reference_price', 'settlement_price', 'status', 'created_at', 'updated_at', 'maker_fee_bps', 'taker_fee_bps', 'position_limit', 'max_open_orders'];
const MESSAGE_KEYS = ['message_id', 'target_username', 'target_trader_id', 'market', 'level', 'title', 'body', 'created_at'];

interface Market {
  market_id: string;
  display_name: string;
  status: string;
  tick_size: number;
  settlement_price: number | null;
  created_at: string;
  updated_at: string;
}

describe('HTTP admin routes', () => {
  let server: HttpTestServer;
  let c: Client;

  beforeEach(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
  });
  afterEach(() => server.close());

  describe('POST /api/v1/admin/users', () => {
    it('provisions a trader: 201 with the profile and an exch_ key shown once; GET /api/v1/user echoes it', async () => {
      const r = await c.admin<{ profile: Trader }>('POST', '/api/v1/admin/users', { username: '  alice  ' });
      expect(r.status).to.equal(201);
      expect(Object.keys(r.body)).to.deep.equal(['profile']);
      expect(Object.keys(r.body.profile)).to.deep.equal(['trader_id', 'username', 'api_key', 'created_at']);
      expect(r.body.profile.username).to.equal('alice');
      expect(r.body.profile.trader_id).to.match(UUID);
      expect(r.body.profile.api_key).to.match(/^exch_[0-9a-f]{32}$/);
      expect(r.body.profile.created_at).to.match(TIMESTAMP);
      const user = await c.trader(r.body.profile.api_key, 'GET', '/api/v1/user');
      expect(user.status).to.equal(200);
      expect(user.body).to.deep.equal(r.body.profile);
    });

    it('refuses a duplicate (409), a missing, blank, long or non-string username (400)', async () => {
      await c.provision('bob');
      expectError(await c.admin('POST', '/api/v1/admin/users', { username: ' bob ' }), 409, 'username_taken', 'username bob already exists');
      expectError(await c.admin('POST', '/api/v1/admin/users', {}), 400, 'invalid_username', 'username is required');
      expectError(await c.admin('POST', '/api/v1/admin/users', { username: '   ' }), 400, 'invalid_username', 'username is required');
      expectError(await c.admin('POST', '/api/v1/admin/users', { username: 'x'.repeat(65) }), 400, 'invalid_username', 'username must be 1 to 64 characters without control characters');
      expectError(await c.admin('POST', '/api/v1/admin/users', { username: 'a\u0007b' }), 400, 'invalid_username');
      expectError(await c.admin('POST', '/api/v1/admin/users', { username: 42 }), 400, 'invalid_username', 'username: expected string, received number');
    });
  });

  it('POST /api/v1/admin/users/reset clears orders, positions and fills, keeps accounts', async () => {
    const a = await c.provision('a');
    const b = await c.provision('b');
    await c.market({ market_id: 'BTC-USD' });
    await c.order(a.api_key, 'BTC-USD', 'SELL', 100, 5);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 100, 2);
    const r = await c.admin('POST', '/api/v1/admin/users/reset');
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ cleared_orders: 1, cleared_positions: 2, cleared_fills: 1 });
    expect((await c.trader(a.api_key, 'GET', '/api/v1/open-orders')).body).to.deep.equal([]);
    expect((await c.trader(a.api_key, 'GET', '/api/v1/positions')).body).to.deep.equal([]);
    expect((await c.trader(b.api_key, 'GET', '/api/v1/fills')).body).to.deep.equal([]);
    expect((await c.trader(b.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
  });

  it('POST trading/stop and trading/start answer the controls', async () => {
    const stop = await c.admin<{ controls: { trading_enabled: boolean; updated_at: string } }>('POST', '/api/v1/admin/trading/stop');
    expect(stop.status).to.equal(200);
    expect(Object.keys(stop.body)).to.deep.equal(['controls']);
    expect(stop.body.controls.trading_enabled).to.equal(false);
    expect(stop.body.controls.updated_at).to.match(TIMESTAMP);
    const start = await c.admin<{ controls: { trading_enabled: boolean } }>('POST', '/api/v1/admin/trading/start');
    expect(start.body.controls.trading_enabled).to.equal(true);
    expectError(await c.request('POST', '/api/v1/admin/trading/stop', { admin: true, raw: '{oops' }), 400, 'invalid_request', /^malformed JSON body/);
    const state = await c.admin<{ controls: { trading_enabled: boolean } }>('GET', '/api/v1/admin/state');
    expect(state.body.controls.trading_enabled).to.equal(true);
  });

  describe('messages', () => {
    it('POST answers the AdminMessageEntry; GET lists newest first, 50 by default, ?limit=N', async () => {
      const t = await c.provision('target');
      const r = await c.admin<Record<string, unknown>>('POST', '/api/v1/admin/messages', { target_username: 'target', level: 'warning', title: 'Heads up', body: ' mind the gap ', market: 'BTC-USD' });
      expect(r.status).to.equal(200);
      expect(Object.keys(r.body)).to.deep.equal(MESSAGE_KEYS);
      expect(r.body).to.include({ target_username: 'target', target_trader_id: t.trader_id, market: 'BTC-USD', level: 'warning', title: 'Heads up', body: 'mind the gap' });
      expect(r.body['message_id']).to.match(UUID);
      const broadcast = await c.admin<Record<string, unknown>>('POST', '/api/v1/admin/messages', { level: 'info', body: 'hello' });
      expect(broadcast.body).to.include({ target_username: null, target_trader_id: null, market: null, title: null });
      for (let i = 0; i < 55; i++) await c.admin('POST', '/api/v1/admin/messages', { level: 'info', body: `m${i}` });
      const list = await c.admin<{ body: string }[]>('GET', '/api/v1/admin/messages');
      expect(list.body).to.have.length(50);
      expect(list.body[0]?.body).to.equal('m54');
      const two = await c.admin<{ body: string }[]>('GET', '/api/v1/admin/messages?limit=2');
      expect(two.body.map((m) => m.body)).to.deep.equal(['m54', 'm53']);
      expect((await c.admin<unknown[]>('GET', '/api/v1/admin/messages?limit=100')).body).to.have.length(57);
      const state = await c.admin<{ recent_messages: unknown[] }>('GET', '/api/v1/admin/state');
      expect(state.body.recent_messages).to.deep.equal(list.body);
    });

    it('refuses an unknown target (404), an empty body, a bad level, a bad limit (400)', async () => {
      expectError(await c.admin('POST', '/api/v1/admin/messages', { target_username: 'ghost', level: 'info', body: 'x' }), 404, 'user_not_found', 'target user ghost not found');
      expectError(await c.admin('POST', '/api/v1/admin/messages', { level: 'info', body: '   ' }), 400, 'invalid_message_body', 'message body must not be empty');
      expectError(await c.admin('POST', '/api/v1/admin/messages', { level: 'loud', body: 'x' }), 400, 'invalid_request', /^level: /);
      expectError(await c.admin('POST', '/api/v1/admin/messages', { level: 'info' }), 400, 'invalid_request', 'body is required');
      expectError(await c.admin('GET', '/api/v1/admin/messages?limit=lots'), 400, 'invalid_query', 'limit: expected a non-negative integer');
    });
  });

  describe('markets', () => {
    it('POST creates (200, the full Market) and replaces; display_name falls back to market_id', async () => {
      const r = await c.admin<Market>('POST', '/api/v1/admin/markets', { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 5, min_order_quantity: 1, reference_price: 100, enabled: true });
      expect(r.status).to.equal(200);
      expect(Object.keys(r.body)).to.deep.equal(MARKET_KEYS);
      expect(r.body).to.include({ market_id: 'BTC-USD', display_name: 'BTC-USD', status: 'enabled', tick_size: 5, settlement_price: null });
      const again = await c.admin<Market>('POST', '/api/v1/admin/markets', { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 10, min_order_quantity: 1, reference_price: null, enabled: false, display_name: 'Bitcoin' });
      expect(again.body).to.include({ display_name: 'Bitcoin', status: 'disabled', tick_size: 10, created_at: r.body.created_at });
      const list = await c.request<Market[]>('GET', '/api/v1/markets');
      expect(list.body).to.deep.equal([again.body]);
    });

    it('POST refuses bad definitions with 400', async () => {
      const def = { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true };
      expectError(await c.admin('POST', '/api/v1/admin/markets', { ...def, market_id: 'BTC-EUR' }), 400, 'invalid_market_definition', 'market_id must equal {base_asset}-{quote_asset} (BTC-USD)');
      expectError(await c.admin('POST', '/api/v1/admin/markets', { ...def, tick_size: 0 }), 400, 'invalid_tick_size', 'tick_size must be an integer greater than 0');
      expectError(await c.admin('POST', '/api/v1/admin/markets', { ...def, min_order_quantity: 0 }), 400, 'invalid_min_order_quantity', 'min_order_quantity must be an integer greater than 0');
      expectError(await c.admin('POST', '/api/v1/admin/markets', { ...def, tick_size: 'one' }), 400, 'invalid_tick_size', 'tick_size: expected number, received string');
      expectError(await c.admin('POST', '/api/v1/admin/markets', { ...def, reference_price: -1 }), 400, 'invalid_reference_price');
      expectError(await c.admin('POST', '/api/v1/admin/markets', { ...def, enabled: undefined }), 400, 'invalid_request', 'enabled is required');
      expect((await c.request('GET', '/api/v1/markets')).body).to.deep.equal([]);
    });

    it('PATCH changes fields and the status; unknown market 404', async () => {
      await c.market({ market_id: 'ETH-USD' });
      const r = await c.admin<Market>('PATCH', '/api/v1/admin/markets/ETH-USD', { enabled: false, tick_size: 2, display_name: 'Ether' });
      expect(r.status).to.equal(200);
      expect(Object.keys(r.body)).to.deep.equal(MARKET_KEYS);
      expect(r.body).to.include({ status: 'disabled', tick_size: 2, display_name: 'Ether' });
      expect((await c.admin<Market>('PATCH', '/api/v1/admin/markets/ETH-USD', { enabled: true })).body.status).to.equal('enabled');
      expectError(await c.admin('PATCH', '/api/v1/admin/markets/XRP-USD', { enabled: true }), 404, 'market_not_configured', 'market XRP-USD is not configured');
      expectError(await c.admin('PATCH', '/api/v1/admin/markets/ETH-USD', { tick_size: 0 }), 400, 'invalid_tick_size');
    });

    it('settle cancels orders, realizes positions and is final (409 after); delete needs no open orders', async () => {
      const a = await c.provision('a');
      const b = await c.provision('b');
      await c.market({ market_id: 'BTC-USD' });
      await c.order(a.api_key, 'BTC-USD', 'SELL', 100, 5);
      await c.order(b.api_key, 'BTC-USD', 'BUY', 100, 3);
      expectError(await c.admin('DELETE', '/api/v1/admin/markets/BTC-USD'), 409, 'market_has_open_orders', 'cannot delete market with open orders');
      expectError(await c.admin('POST', '/api/v1/admin/markets/BTC-USD/settle', { settlement_price: 0 }), 400, 'invalid_settlement_price', 'settlement_price must be an integer greater than 0');
      expectError(await c.admin('POST', '/api/v1/admin/markets/NOPE-USD/settle', {}), 400, 'invalid_settlement_price', 'settlement_price is required');
      expectError(await c.admin('POST', '/api/v1/admin/markets/NOPE-USD/settle', { settlement_price: 5 }), 404, 'market_not_configured');
      const r = await c.admin<{ market: Market; canceled_orders: number; affected_traders: number; settled_quantity: number; settlement_price: number }>(
        'POST',
        '/api/v1/admin/markets/BTC-USD/settle',
        { settlement_price: 110, announcement: 'BTC done' },
      );
      expect(r.status).to.equal(200);
      expect(Object.keys(r.body)).to.deep.equal(['market', 'canceled_orders', 'affected_traders', 'settled_quantity', 'settlement_price']);
      expect(r.body.market).to.include({ status: 'settled', settlement_price: 110 });
      expect(r.body).to.include({ canceled_orders: 1, affected_traders: 2, settled_quantity: 3, settlement_price: 110 });
      const pos = await c.trader<{ net_quantity: number; realized_pnl: number; average_entry_price: number | null }[]>(b.api_key, 'GET', '/api/v1/positions');
      expect(pos.body[0]).to.include({ net_quantity: 0, realized_pnl: 30, average_entry_price: null });
      const messages = await c.admin<{ body: string }[]>('GET', '/api/v1/admin/messages');
      expect(messages.body[0]?.body).to.equal('BTC done');
      expectError(await c.admin('POST', '/api/v1/admin/markets/BTC-USD/settle', { settlement_price: 5 }), 409, 'market_settled');
      expectError(await c.admin('PATCH', '/api/v1/admin/markets/BTC-USD', { enabled: true }), 409, 'market_settled');
      expectError(await c.admin('POST', '/api/v1/admin/markets', { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true }), 409, 'market_settled');
      const del = await c.admin('DELETE', '/api/v1/admin/markets/BTC-USD');
      expect(del.status).to.equal(200);
      expect(del.body).to.deep.equal({ market_id: 'BTC-USD' });
      expectError(await c.admin('DELETE', '/api/v1/admin/markets/BTC-USD'), 404, 'market_not_configured');
    });

    it('a disabled market can be settled', async () => {
      await c.market({ market_id: 'SOL-USD', enabled: false });
      expect((await c.admin('POST', '/api/v1/admin/markets/SOL-USD/settle', { settlement_price: 3 })).status).to.equal(200);
    });
  });

  it('POST config/load applies markets and controls in one step, all or nothing', async () => {
    const def = (id: string) => ({ market_id: id, base_asset: id.split('-')[0], quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true });
    const r = await c.admin<{ controls: { trading_enabled: boolean }; markets: Market[] }>('POST', '/api/v1/admin/config/load', { trading_enabled: false, markets: [def('B-USD'), def('A-USD')] });
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body)).to.deep.equal(['controls', 'markets']);
    expect(r.body.controls.trading_enabled).to.equal(false);
    expect(r.body.markets.map((m) => m.market_id)).to.deep.equal(['A-USD', 'B-USD']);
    const kept = await c.admin<{ controls: { trading_enabled: boolean }; markets: Market[] }>('POST', '/api/v1/admin/config/load', { markets: [def('C-USD')] });
    expect(kept.body.controls.trading_enabled).to.equal(false);
    expect(kept.body.markets).to.have.length(3);
    expectError(await c.admin('POST', '/api/v1/admin/config/load', { markets: [def('D-USD'), { ...def('E-USD'), tick_size: 0 }] }), 400, 'invalid_tick_size');
    expectError(await c.admin('POST', '/api/v1/admin/config/load', { markets: [def('D-USD'), { ...def('E-USD'), tick_size: '1' }] }), 400, 'invalid_tick_size', 'markets[1].tick_size: expected number, received string');
    expect((await c.request<unknown[]>('GET', '/api/v1/markets')).body).to.have.length(3);
  });

  it('GET state: controls, markets, recent messages and the full persistence status', async () => {
    await c.market({ market_id: 'BTC-USD' });
    const r = await c.admin<Record<string, unknown>>('GET', '/api/v1/admin/state');
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body)).to.deep.equal(['controls', 'markets', 'recent_messages', 'persistence', 'limits']);
    expect(r.body['persistence']).to.deep.equal({ backend: 'in_memory', mode: 'disabled', queue_depth: 0, in_flight_ops: 0, total_enqueued: 1, total_flushes: 0, last_error: null });
    expect(r.body['markets']).to.have.length(1);
  });

  it('GET leaderboard ranks every trader', async () => {
    const a = await c.provision('a');
    const b = await c.provision('b');
    await c.market({ market_id: 'BTC-USD' });
    await c.order(a.api_key, 'BTC-USD', 'SELL', 100, 5);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 100, 5);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 120, 1);
    const r = await c.admin<Record<string, unknown>[]>('GET', '/api/v1/admin/leaderboard');
    expect(r.status).to.equal(200);
    expect(r.body.map((row) => [row['rank'], row['username'], row['net_pnl']])).to.deep.equal([
      [1, 'b', 100],
      [2, 'a', -100],
    ]);
    expect(Object.keys(r.body[0] ?? {})).to.deep.equal(['rank', 'trader_id', 'username', 'net_pnl', 'realized_pnl', 'unrealized_pnl', 'gross_exposure']);
  });

  it('GET events streams the log as canonical NDJSON, after_seq filters', async () => {
    await c.provision('a');
    await c.market({ market_id: 'BTC-USD' });
    await c.admin('POST', '/api/v1/admin/trading/stop');
    const r = await c.admin<string>('GET', '/api/v1/admin/events');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    const lines = r.body.trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { seq: number; type: string }).type)).to.deep.equal(['TraderProvisioned', 'MarketUpserted', 'TradingStopped']);
    for (const line of lines) {
      const keys = Object.keys(JSON.parse(line) as object);
      expect(keys).to.deep.equal([...keys].sort());
    }
    const after = await c.admin<string>('GET', '/api/v1/admin/events?after_seq=2');
    expect(after.body.trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq)).to.deep.equal([3]);
    expect((await c.admin<string>('GET', '/api/v1/admin/events?after_seq=3')).body).to.equal('');
    expectError(await c.admin('GET', '/api/v1/admin/events?after_seq=-1'), 400, 'invalid_query', 'after_seq: expected a non-negative integer');
  });

  it('GET events of a long log arrives whole through backpressure', async () => {
    const market = { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true, display_name: 'x'.repeat(100) };
    const exchange = server.context.service.exchange;
    // Thousands of events straight through the service, then one export bigger than any socket buffer.
    for (let i = 0; i < 3000; i++) await server.context.service.execute((s) => ({ type: 'UpsertMarket', time: s.time, market }));
    const r = await c.admin<string>('GET', '/api/v1/admin/events');
    const lines = r.body.trim().split('\n');
    expect(lines).to.have.length(exchange.seq);
    expect((JSON.parse(lines[lines.length - 1] as string) as { seq: number }).seq).to.equal(exchange.seq);
  });
});
