// Every client op and every server frame type of the protocol, against a real server.
import { expect } from 'chai';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import { WsTestClient, sleep, type Frame } from './support/ws-test-client.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('ws protocol', () => {
  let fx: ExchangeFixture;
  let alice: Trader;
  let bob: Trader;

  before(async () => {
    // The protocol, not the per-trader budget (test/ws/budget.spec.ts), is under test here.
    fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: '100000' });
    alice = await fx.trader('alice');
    bob = await fx.trader('bob');
    await fx.market('BTC-USD');
    await fx.market('ETH-USD', { tick_size: 5, min_order_quantity: 2 });
  });
  after(() => fx.stop());

  it('sends a heartbeat with time and epoch on connect', async () => {
    const c = await fx.client();
    const hb = await c.nextType('heartbeat');
    expect(hb['time']).to.match(TIME);
    expect(hb['epoch']).to.equal(fx.server.context.epoch);
    expect(hb['sequences']).to.deep.equal({});
  });

  it('rejects an upgrade on any path but /ws', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      void WsTestClient.open(fx.server.wsUrl.replace(/\/ws$/, '/other')).then(() => reject(new Error('upgraded')), (err: Error) => resolve(Number(/\d{3}/.exec(err.message)?.[0])));
    });
    expect(status).to.equal(404);
  });

  it('answers ping with pong, echoing request_id or null', async () => {
    const c = await fx.client();
    expect(await c.request({ op: 'ping', request_id: 'p1' })).to.deep.equal({ type: 'pong', request_id: 'p1' });
    c.send({ op: 'ping' });
    expect(await c.nextType('pong')).to.deep.equal({ type: 'pong', request_id: null });
  });

  it('authenticates, replaces the identity on a second authenticate, and clears it on a bad key', async () => {
    const c = await fx.client();
    c.send({ op: 'authenticate', api_key: alice.api_key });
    expect(await c.nextType('authenticated')).to.deep.include({ type: 'authenticated', trader_id: alice.trader_id, username: 'alice', scope: 'trade' });
    c.send({ op: 'authenticate', api_key: bob.api_key });
    expect(await c.nextType('authenticated')).to.deep.include({ type: 'authenticated', trader_id: bob.trader_id, username: 'bob', scope: 'trade' });
    const ack = await c.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'BUY', price: 1, quantity: 1 });
    expect((ack['order'] as { trader_id: string }).trader_id).to.equal(bob.trader_id);
    c.send({ op: 'authenticate', api_key: 'exch_00000000000000000000000000000000' });
    const err = await c.nextType('error');
    expect(err['code']).to.equal('invalid_api_key');
    expect(err['message']).to.be.a('string').and.not.equal('');
    const reject = await c.request({ op: 'submit_order', request_id: 'after-bad-key', market: 'BTC-USD', side: 'BUY', price: 1, quantity: 1 });
    expect(reject['code']).to.equal('unauthenticated');
  });

  it('refuses trading before authenticate with reject unauthenticated for each op', async () => {
    const c = await fx.client();
    const frames = [
      { op: 'submit_order', request_id: 'u1', market: 'BTC-USD', side: 'BUY', price: 100, quantity: 1 },
      { op: 'cancel_order', request_id: 'u2', order_id: '00000000-0000-0000-0000-000000000000' },
      { op: 'amend_order', request_id: 'u3', order_id: '00000000-0000-0000-0000-000000000000', remaining: 1 },
    ];
    for (const f of frames) {
      expect(await c.request(f)).to.deep.equal({ type: 'reject', op: f.op, request_id: f.request_id, code: 'unauthenticated', message: 'authenticate before trading' });
    }
    c.send({ op: 'submit_order', market: 'BTC-USD', side: 'BUY', price: 100, quantity: 1 });
    expect(await c.nextType('reject')).to.include({ request_id: null, code: 'unauthenticated' });
  });

  it('acks submit, amend and cancel with the same bodies as REST', async () => {
    const c = await fx.clientAs(alice);
    const submitted = await c.request({ op: 'submit_order', request_id: 's1', market: 'BTC-USD', side: 'SELL', price: 500, quantity: 4 });
    expect(submitted).to.include({ type: 'ack', op: 'submit_order', request_id: 's1', resting: true });
    expect(submitted['fills']).to.deep.equal([]);
    const order = submitted['order'] as Record<string, unknown>;
    expect(Object.keys(order)).to.deep.equal(['id', 'trader_id', 'market', 'side', 'price', 'quantity', 'remaining', 'created_at', 'client_order_id', 'type', 'time_in_force', 'self_trade_prevention', 'status', 'average_fill_price']);
    expect(order).to.include({ trader_id: alice.trader_id, market: 'BTC-USD', side: 'SELL', price: 500, quantity: 4, remaining: 4 });
    expect(order['id']).to.match(UUID);
    expect(order['created_at']).to.match(TIME);

    const amended = await c.request({ op: 'amend_order', request_id: 'a1', order_id: order['id'], remaining: 3 });
    // Extension (docs/websocket.md, "Limits"): every ack tells the trader's remaining budget.
    expect(amended['rate_limit_remaining']).to.be.a('number');
    expect(amended).to.deep.equal({ type: 'ack', op: 'amend_order', request_id: 'a1', order: { ...order, remaining: 3 }, rate_limit_remaining: amended['rate_limit_remaining'] });
    const canceled = await c.request({ op: 'cancel_order', request_id: 'c1', order_id: order['id'] });
    expect(canceled).to.deep.equal({ type: 'ack', op: 'cancel_order', request_id: 'c1', order: { ...order, remaining: 3, status: 'canceled' }, rate_limit_remaining: (amended['rate_limit_remaining'] as number) - 1 });

    // The same operation over REST answers with the same record.
    const res = await fetch(`${fx.server.url}/api/v1/orders`, {
      method: 'POST',
      headers: { 'x-api-key': alice.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ market: 'BTC-USD', side: 'SELL', price: 500, quantity: 4 }),
    });
    const rest = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(rest).sort()).to.deep.equal(['fills', 'order', 'resting']);
    expect(Object.keys(rest['order'] as object)).to.deep.equal(Object.keys(order));
    await c.request({ op: 'cancel_order', request_id: rid(), order_id: (rest['order'] as { id: string }).id });
  });

  it('acks a crossing submit with its fills', async () => {
    const a = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    const maker = await a.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'SELL', price: 700, quantity: 2 });
    const taker = await b.request({ op: 'submit_order', request_id: 'x1', market: 'BTC-USD', side: 'BUY', price: 710, quantity: 5 });
    expect(taker['resting']).to.equal(true);
    const fills = taker['fills'] as Record<string, unknown>[];
    expect(fills).to.have.length(1);
    expect(Object.keys(fills[0] as object)).to.deep.equal(['fill_id', 'market', 'maker_order_id', 'taker_order_id', 'price', 'quantity', 'occurred_at', 'fee', 'liquidity']);
    expect(fills[0]).to.include({ market: 'BTC-USD', maker_order_id: (maker['order'] as { id: string }).id, taker_order_id: (taker['order'] as { id: string }).id, price: 700, quantity: 2 });
    expect(taker['order']).to.include({ remaining: 3, quantity: 5 });
    await b.request({ op: 'cancel_order', request_id: rid(), order_id: (taker['order'] as { id: string }).id });
  });

  describe('rejects with the code of the spec table and the request_id', () => {
    let c: WsTestClient;
    before(async () => {
      // A trader with no position, so the position limit figures are known.
      c = await fx.clientAs(await fx.trader('carol'));
    });
    const submit = (fields: Record<string, unknown>): Promise<Frame> =>
      c.request({ op: 'submit_order', request_id: rid('rj'), market: 'BTC-USD', side: 'BUY', price: 100, quantity: 1, ...fields });

    it('market, price and quantity checks', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ market: 'BTCUSD' }, 'invalid_market'],
        [{ market: 'DOGE-USD' }, 'market_not_configured'],
        [{ price: 0 }, 'invalid_price'],
        [{ price: 1.5 }, 'invalid_price'],
        [{ market: 'ETH-USD', price: 7, quantity: 2 }, 'tick_size_violation'],
        [{ quantity: 0 }, 'invalid_quantity'],
        [{ market: 'ETH-USD', price: 5, quantity: 1 }, 'quantity_below_minimum'],
        [{ quantity: 1001 }, 'position_limit_exceeded'],
        [{ price: 9007199254740990, quantity: 2 }, 'overflow'],
      ];
      for (const [fields, code] of cases) {
        const reply = await submit(fields);
        expect(reply, JSON.stringify(fields)).to.include({ type: 'reject', op: 'submit_order', code });
        expect(reply['message']).to.be.a('string').and.not.equal('');
      }
      expect((await submit({ quantity: 1001 }))['message']).to.equal('projected net position for BTC-USD would be 1001; limit is +/-1000');
    });

    it('market state and global trading', async () => {
      await fx.market('SOL-USD', { enabled: false });
      expect((await submit({ market: 'SOL-USD' }))['code']).to.equal('market_disabled');
      await fx.market('XRP-USD');
      await fx.admin('POST', '/api/v1/admin/markets/XRP-USD/settle', { settlement_price: 10 });
      expect((await submit({ market: 'XRP-USD' }))['code']).to.equal('market_settled');
      await fx.admin('POST', '/api/v1/admin/trading/stop');
      try {
        expect((await submit({}))['code']).to.equal('trading_disabled');
      } finally {
        await fx.admin('POST', '/api/v1/admin/trading/start');
      }
    });

    it('amend and cancel checks', async () => {
      const mine = await submit({ price: 50, quantity: 5 });
      const id = (mine['order'] as { id: string }).id;
      const bobs = await fx.clientAs(bob);
      const cases: [WsTestClient, Record<string, unknown>, string][] = [
        [c, { op: 'amend_order', order_id: id, remaining: 0 }, 'invalid_remaining'],
        [c, { op: 'amend_order', order_id: id, remaining: 6 }, 'invalid_amend'],
        [c, { op: 'amend_order', order_id: '00000000-0000-0000-0000-000000000000', remaining: 1 }, 'order_not_found'],
        [c, { op: 'cancel_order', order_id: '00000000-0000-0000-0000-000000000000' }, 'order_not_found'],
        [bobs, { op: 'cancel_order', order_id: id }, 'order_not_owned'],
        [bobs, { op: 'amend_order', order_id: id, remaining: 1 }, 'order_not_owned'],
      ];
      for (const [client, frame, code] of cases) {
        const request_id = rid('oc');
        expect(await client.request({ ...frame, request_id }), JSON.stringify(frame)).to.include({ type: 'reject', op: frame['op'], request_id, code });
      }
      await c.request({ op: 'cancel_order', request_id: rid(), order_id: id });
    });
  });

  describe('protocol errors keep the connection open', () => {
    it('invalid_message for garbage, non-objects, unknown or missing op, and missing or ill-typed fields', async () => {
      const c = await fx.client();
      const bad: (string | object)[] = [
        'not json',
        '[1,2]',
        '42',
        { nope: 1 },
        { op: 'dance' },
        { op: 'authenticate' },
        { op: 'subscribe', channel: 'l3' },
        { op: 'subscribe', channel: 'l3', market: 'BTC-USD', last_sequence: -1 },
        { op: 'submit_order', request_id: 'bad1', market: 'BTC-USD', side: 'BUY', price: '100', quantity: 1 },
        { op: 'submit_order', market: 'BTC-USD', side: 'HOLD', price: 100, quantity: 1 },
        { op: 'cancel_order' },
        { op: 'amend_order', order_id: 'x' },
        { op: 'ping', request_id: 7 },
      ];
      for (const frame of bad) {
        c.send(frame);
        const err = await c.nextType('error');
        expect(err['code'], JSON.stringify(frame)).to.equal('invalid_message');
        expect(err['message']).to.be.a('string').and.not.equal('');
      }
      expect(c.history.find((f) => f['request_id'] === 'bad1')?.['message']).to.match(/price/);
      // An unknown op is named in the error, but not reflected back whole: its first 64 characters.
      c.send({ op: 'x'.repeat(50_000), request_id: 'huge-op' });
      const huge = await c.nextType('error');
      expect(huge).to.include({ code: 'invalid_message', request_id: 'huge-op' });
      expect(huge['message']).to.equal(`unknown op "${'x'.repeat(63)}…; expected one of ${String(huge['message']).split('; expected one of ')[1] ?? ''}`);
      expect(String(huge['message']).length).to.be.lessThan(400);
      c.send({ op: 'dance', request_id: 'short-op' });
      expect(await c.nextType('error')).to.include({ message: `unknown op "dance"; expected one of ${String(huge['message']).split('; expected one of ')[1] ?? ''}` });
      expect(await c.request({ op: 'ping', request_id: 'still-open' })).to.include({ type: 'pong' });
    });

    it('invalid_message for binary frames and frames over 64 KiB', async () => {
      const c = await fx.client();
      c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      expect(await c.nextType('error')).to.include({ code: 'invalid_message' });
      c.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(70 * 1024) }));
      const err = await c.nextType('error');
      expect(err).to.include({ code: 'invalid_message' });
      expect(err['message']).to.match(/exceeds/);
      expect(await c.request({ op: 'ping', request_id: 'alive' })).to.include({ type: 'pong' });
    });

    it('closes with 1009 a frame beyond the hard limit instead of buffering it', async () => {
      const c = await fx.client();
      const code = await new Promise<number>((resolve) => {
        c.ws.once('close', (closeCode) => resolve(closeCode));
        c.send('x'.repeat(2 * 1024 * 1024));
      });
      expect(code).to.equal(1009);
    });

    it('unsupported_channel for a channel the server does not have, naming those it has', async () => {
      const c = await fx.client();
      for (const op of ['subscribe', 'unsubscribe']) {
        c.send({ op, channel: 'l1', market: 'BTC-USD' });
        expect(await c.nextType('error')).to.deep.equal({ type: 'error', code: 'unsupported_channel', message: 'unsupported channel; supported channels are l3, trades, l2, ticker, standings' });
      }
    });
  });

  it('subscribes to several markets, unsubscribes one, and sends a fresh snapshot on re-subscribe', async () => {
    const trader = await fx.clientAs(alice);
    const watcher = await fx.client();
    const btc = await ExchangeFixture.subscribe(watcher, 'BTC-USD');
    const eth = await ExchangeFixture.subscribe(watcher, 'ETH-USD');
    expect(btc).to.include({ type: 'snapshot', channel: 'l3', market: 'BTC-USD', epoch: fx.server.context.epoch });
    expect(eth).to.include({ market: 'ETH-USD' });
    const placed = await trader.request({ op: 'submit_order', request_id: rid(), market: 'ETH-USD', side: 'BUY', price: 10, quantity: 2 });
    const delta = await watcher.nextType('delta');
    expect(delta).to.deep.equal({
      type: 'delta',
      channel: 'l3',
      market: 'ETH-USD',
      sequence: (eth['sequence'] as number) + 1,
      events: [{ kind: 'order_added', order: { order_id: (placed['order'] as { id: string }).id, side: 'BUY', price: 10, remaining: 2, created_at: (placed['order'] as { created_at: string }).created_at } }],
    });
    watcher.send({ op: 'unsubscribe', channel: 'l3', market: 'ETH-USD' });
    expect(await watcher.nextType('unsubscribed')).to.deep.equal({ type: 'unsubscribed', channel: 'l3', market: 'ETH-USD' });
    await trader.request({ op: 'cancel_order', request_id: rid(), order_id: (placed['order'] as { id: string }).id });
    await trader.request({ op: 'ping', request_id: rid() });
    await sleep(50);
    expect(watcher.untaken('delta')).to.deep.equal([]);
    const again = await ExchangeFixture.subscribe(watcher, 'ETH-USD');
    expect(again['sequence']).to.equal((eth['sequence'] as number) + 2);
    // docs/websocket.md: subscribing again to a market still followed sends no new snapshot (unsubscribe first
    // for a fresh one; test/ws/subscription-limits.spec.ts).
    watcher.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD' });
    expect(await watcher.nextType('subscribed')).to.include({ market: 'BTC-USD', already_subscribed: true });
    watcher.send({ op: 'unsubscribe', channel: 'l3', market: 'BTC-USD' });
    await watcher.nextType('unsubscribed');
    const fresh = await ExchangeFixture.subscribe(watcher, 'BTC-USD');
    expect(fresh['sequence']).to.equal(fx.server.context.service.state.marketData.sequence('BTC-USD'));
  });

  it('gives an empty snapshot at sequence 0 for an unknown market, then its deltas once it trades', async () => {
    const watcher = await fx.client();
    expect(await ExchangeFixture.subscribe(watcher, 'NEW-USD')).to.deep.equal({ type: 'snapshot', channel: 'l3', market: 'NEW-USD', sequence: 0, bids: [], asks: [], epoch: fx.server.context.epoch });
    await fx.market('NEW-USD');
    const trader = await fx.clientAs(bob);
    await trader.request({ op: 'submit_order', request_id: rid(), market: 'NEW-USD', side: 'SELL', price: 3, quantity: 1 });
    expect(await watcher.nextType('delta')).to.include({ market: 'NEW-USD', sequence: 1 });
  });

  it('sends private events with user_sequence only to the trader\'s connections, subscribed or not', async () => {
    const a1 = await fx.clientAs(alice);
    const a2 = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    const spectator = await fx.client();
    const ack = await a1.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'BUY', price: 2, quantity: 1 });
    for (const c of [a1, a2]) {
      const state = await c.nextType('order_state');
      expect(Object.keys(state)).to.deep.equal(['type', 'order', 'status', 'user_sequence']);
      expect(state).to.deep.include({ status: 'open', order: ack['order'] });
      expect(state['user_sequence']).to.equal(fx.server.context.service.state.privateFeed.sequence(alice.trader_id));
    }
    await b.request({ op: 'ping', request_id: rid() });
    await spectator.request({ op: 'ping', request_id: rid() });
    expect(b.untaken('order_state')).to.deep.equal([]);
    expect(spectator.untaken('order_state')).to.deep.equal([]);
    await a1.request({ op: 'cancel_order', request_id: rid(), order_id: (ack['order'] as { id: string }).id });
    const canceled = await a2.next((f) => f.type === 'order_state' && f['status'] === 'canceled', 'canceled state');
    expect(canceled['order']).to.deep.equal({ ...(ack['order'] as object), status: 'canceled' });
  });

  it('replies in request order when a reject and acks are pipelined', async () => {
    const c = await fx.clientAs(alice);
    const ids = ['o1', 'o2', 'o3', 'o4'];
    c.send({ op: 'submit_order', request_id: 'o1', market: 'BTC-USD', side: 'BUY', price: 0, quantity: 1 });
    c.send({ op: 'submit_order', request_id: 'o2', market: 'BTC-USD', side: 'BUY', price: 3, quantity: 1 });
    c.send({ op: 'ping', request_id: 'o3' });
    c.send({ op: 'submit_order', request_id: 'o4', market: 'NOPE-USD', side: 'BUY', price: 3, quantity: 1 });
    await c.next((f) => f['request_id'] === 'o4', 'o4');
    const order = c.history.filter((f) => ids.includes(f['request_id'] as string)).map((f) => `${f['request_id'] as string}:${f.type}`);
    expect(order).to.deep.equal(['o1:reject', 'o2:ack', 'o3:pong', 'o4:reject']);
    const placed = c.history.find((f) => f['request_id'] === 'o2') as Frame;
    await c.request({ op: 'cancel_order', request_id: rid(), order_id: (placed['order'] as { id: string }).id });
  });
});
