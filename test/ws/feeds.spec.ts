// The conflated public channels over a real server: l2 and ticker at most once per interval however
// fast orders come, standings at most once a second and only when public, opt-in batched l3.
import { expect } from 'chai';
import { until } from '../support/until.ts';
import { submitCommand } from '../../src/commands/order-terms.ts';
import type { L2Level } from '../../src/server/feeds/l2-book.ts';
import { L2Replica } from '../../src/server/feeds/l2-book.ts';
import { ExchangeFixture, type Trader } from './support/exchange-fixture.ts';
import { sleep, type Frame, type WsTestClient } from './support/ws-test-client.ts';

type L2Frame = Frame & { sequence: number; bids: L2Level[]; asks: L2Level[] };

describe('ws conflated channels', function () {
  this.timeout(30_000);
  let fx: ExchangeFixture;
  let alice: Trader;
  let bob: Trader;

  afterEach(async () => fx?.stop());

  async function setup(env: Record<string, string> = {}): Promise<void> {
    fx = await ExchangeFixture.start(env);
    alice = await fx.trader('alice');
    bob = await fx.trader('bob');
    await fx.market('BTC-USD');
    await fx.market('ETH-USD');
  }

  /** Runs `count` order commands in-process, spread evenly over `ms`: pairs of crossing orders at moving prices. */
  async function flood(count: number, ms: number): Promise<void> {
    const service = fx.server.context.service;
    const bursts = Math.max(1, Math.round(ms / 10));
    const perBurst = Math.ceil(count / bursts / 2);
    const started = performance.now();
    let sent = 0;
    for (let b = 0; b < bursts && sent < count; b++) {
      const pending: Promise<unknown>[] = [];
      for (let i = 0; i < perBurst && sent < count; i++, sent += 2) {
        // A resting order and the order that takes it: a trade each pair, positions going back and forth.
        const [maker, taker] = (sent / 2) % 2 === 0 ? [alice, bob] : [bob, alice];
        const price = 100 + ((sent / 2) % 5);
        for (const [who, side] of [[maker, 'BUY'], [taker, 'SELL']] as const) {
          pending.push(
            service.execute((stamp) => submitCommand({ market: 'BTC-USD', side, price, quantity: 1 }, who.trader_id, stamp)),
          );
        }
      }
      await Promise.all(pending);
      const due = started + ((b + 1) * ms) / bursts;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
    }
    expect(sent).to.equal(count);
  }

  it('l2: a snapshot of price levels, then updates that rebuild the book the traders made', async () => {
    await setup();
    const trader = await fx.clientAs(alice);
    await trader.request({ op: 'submit_order', request_id: 'a', market: 'BTC-USD', side: 'BUY', price: 100, quantity: 3 });
    await trader.request({ op: 'submit_order', request_id: 'b', market: 'BTC-USD', side: 'BUY', price: 100, quantity: 2 });
    const watcher = await fx.client();
    watcher.send({ op: 'subscribe', channel: 'l2', market: 'BTC-USD' });
    const snapshot = (await watcher.next((f) => f.type === 'snapshot' && f['channel'] === 'l2')) as L2Frame;
    expect(snapshot).to.deep.include({ channel: 'l2', market: 'BTC-USD', depth: null, bids: [{ price: 100, quantity: 5, orders: 2 }], asks: [] });
    const replica = new L2Replica();
    replica.load(snapshot);
    await trader.request({ op: 'submit_order', request_id: 'c', market: 'BTC-USD', side: 'SELL', price: 105, quantity: 4 });
    await trader.request({ op: 'submit_order', request_id: 'd', market: 'BTC-USD', side: 'BUY', price: 99, quantity: 1 });
    // The two orders may fall into one interval or two: apply updates until the book shows both.
    const expected = { bids: [{ price: 100, quantity: 5, orders: 2 }, { price: 99, quantity: 1, orders: 1 }], asks: [{ price: 105, quantity: 4, orders: 1 }] };
    let sequence = snapshot.sequence;
    while (JSON.stringify(replica.view()) !== JSON.stringify(expected)) {
      const update = (await watcher.next((f) => f.type === 'update' && f['channel'] === 'l2')) as L2Frame;
      expect(update.sequence).to.equal(++sequence);
      expect(replica.apply(update)).to.equal(true);
    }
    // depth 1: only the best level of each side; a level that leaves the top comes with quantity 0.
    const top = await fx.client();
    top.send({ op: 'subscribe', channel: 'l2', market: 'BTC-USD', depth: 1 });
    const topSnapshot = (await top.next((f) => f.type === 'snapshot')) as L2Frame;
    expect(topSnapshot).to.deep.include({ depth: 1, bids: [{ price: 100, quantity: 5, orders: 2 }], asks: [{ price: 105, quantity: 4, orders: 1 }] });
    await trader.request({ op: 'submit_order', request_id: 'e', market: 'BTC-USD', side: 'BUY', price: 101, quantity: 7 });
    // Updates of every depth share the market's l2 sequence; one that changed nothing in the top 1 carries no level.
    let topUpdate = (await top.next((f) => f.type === 'update')) as L2Frame;
    while (topUpdate.bids.length === 0) topUpdate = (await top.next((f) => f.type === 'update')) as L2Frame;
    expect(topUpdate.bids).to.have.deep.members([{ price: 101, quantity: 7, orders: 1 }, { price: 100, quantity: 0, orders: 0 }]);
    expect(topUpdate.asks).to.deep.equal([]);
    watcher.send({ op: 'unsubscribe', channel: 'l2', market: 'BTC-USD' });
    expect(await watcher.nextType('unsubscribed')).to.deep.equal({ type: 'unsubscribed', channel: 'l2', market: 'BTC-USD' });
  });

  it('10,000 commands in one second: at most 10 l2 updates and 10 tickers per market per subscriber', async () => {
    await setup();
    const spectators: WsTestClient[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await fx.client();
      c.send({ op: 'subscribe', channel: 'l2', market: 'BTC-USD' });
      c.send({ op: 'subscribe', channel: 'ticker', market: 'BTC-USD' });
      c.send({ op: 'subscribe', channel: 'l2', market: 'ETH-USD' });
      await c.next((f) => f.type === 'snapshot' && f['market'] === 'ETH-USD');
      spectators.push(c);
    }
    const first = spectators[0] as WsTestClient;
    // Start right after an interval's update went out, so the second of commands spans ten intervals.
    const trader = await fx.clientAs(alice);
    await trader.request({ op: 'submit_order', request_id: 'warm', market: 'BTC-USD', side: 'BUY', price: 80, quantity: 1 });
    await first.next((f) => f.type === 'update' && f['market'] === 'BTC-USD');
    for (const c of spectators) c.take('update'), c.take('ticker');
    await flood(10_000, 900);
    // Every spectator's last ticker shows the flood's end: it comes at the end of an interval, later on
    // a busy machine (a fixed 300 ms was once too short, under a load average of 6). Nothing changes
    // after the flood, so no further update or ticker comes meanwhile.
    await until('every spectator to have the ticker of the flood\'s end', () => spectators.every((c) => c.untaken('ticker').some((t) => t['trades'] === 5000)), 5_000);
    await sleep(150);
    for (const c of spectators) {
      const updates = c.take('update') as L2Frame[];
      const tickers = c.take('ticker');
      expect(updates.length, 'l2 updates').to.be.within(2, 10);
      expect(updates.every((u) => u['market'] === 'BTC-USD'), 'no update for a market nothing happened in').to.equal(true);
      expect(tickers.length, 'tickers').to.be.within(2, 10);
      for (let i = 1; i < updates.length; i++) expect((updates[i] as L2Frame).sequence).to.equal((updates[i - 1] as L2Frame).sequence + 1);
      const last = tickers.at(-1) as Frame;
      expect(last).to.deep.include({ channel: 'ticker', market: 'BTC-USD', best_bid: 80, best_ask: null, volume: 5000, trades: 5000 });
    }
  });

  it('ticker: best bid and ask, last trade, session volume, high and low; a new subscriber gets it at once', async () => {
    await setup();
    const a = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    await a.request({ op: 'submit_order', request_id: '1', market: 'ETH-USD', side: 'SELL', price: 50, quantity: 5 });
    await b.request({ op: 'submit_order', request_id: '2', market: 'ETH-USD', side: 'BUY', price: 50, quantity: 2 });
    const watcher = await fx.client();
    watcher.send({ op: 'subscribe', channel: 'ticker', market: 'ETH-USD' });
    expect(await watcher.nextType('ticker')).to.deep.equal({
      type: 'ticker', channel: 'ticker', market: 'ETH-USD', best_bid: null, best_bid_quantity: null, best_ask: 50, best_ask_quantity: 3,
      last_price: 50, last_quantity: 2, volume: 2, high: 50, low: 50, trades: 1,
    });
    await a.request({ op: 'submit_order', request_id: '3', market: 'ETH-USD', side: 'SELL', price: 48, quantity: 1 });
    await b.request({ op: 'submit_order', request_id: '4', market: 'ETH-USD', side: 'BUY', price: 60, quantity: 2 });
    // The two orders may fall into one interval or two: the last ticker has both.
    let next = await watcher.nextType('ticker');
    while (next['trades'] !== 3) next = await watcher.nextType('ticker');
    expect(next).to.deep.include({ best_ask: 50, best_ask_quantity: 2, last_price: 50, last_quantity: 1, volume: 4, high: 50, low: 48, trades: 3 });
    await sleep(250);
    expect(watcher.untaken('ticker'), 'nothing changed: no ticker').to.deep.equal([]);
  });

  it('standings: refused with standings_not_public while not public', async () => {
    await setup();
    const c = await fx.client();
    c.send({ op: 'subscribe', channel: 'standings' });
    expect(await c.nextType('error')).to.deep.equal({ type: 'error', code: 'standings_not_public', message: 'live standings are not public; the organizer has not enabled them' });
  });

  it('standings when public: the ranked rows without internal ids, at most once a second', async () => {
    await setup({ PUBLIC_STANDINGS: 'true' });
    const c = await fx.client();
    c.send({ op: 'subscribe', channel: 'standings' });
    const first = await c.nextType('standings');
    const rows = first['rows'] as Record<string, unknown>[];
    expect(rows.map((r) => r['username']).sort()).to.deep.equal(['alice', 'bob']);
    expect(rows[0]).to.have.keys(['rank', 'username', 'net_pnl', 'realized_pnl', 'unrealized_pnl', 'gross_exposure']);
    const a = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    await a.request({ op: 'submit_order', request_id: '1', market: 'BTC-USD', side: 'SELL', price: 100, quantity: 5 });
    const started = performance.now();
    // Trades at moving prices for two seconds: the standings change all the time, frames at most 1/s.
    let price = 100;
    while (performance.now() - started < 2000) {
      await b.request({ op: 'submit_order', request_id: `b${price}`, market: 'BTC-USD', side: 'BUY', price: 100, quantity: 1 });
      await a.request({ op: 'submit_order', request_id: `a${price}`, market: 'BTC-USD', side: 'SELL', price: 100 + (price % 3), quantity: 1 });
      price++;
      await sleep(5);
    }
    await sleep(100);
    const frames = c.take('standings');
    expect(frames.length).to.be.within(1, 3);
    c.send({ op: 'unsubscribe', channel: 'standings' });
    expect(await c.nextType('unsubscribed')).to.deep.equal({ type: 'unsubscribed', channel: 'standings', market: null });
  });

  it('batch: an opted-in l3 subscriber gets the deltas of one turn in one frame; others see no change', async () => {
    await setup();
    const batched = await fx.client();
    batched.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD', batch: true });
    await batched.nextType('snapshot');
    const plain = await fx.client();
    const snap = await ExchangeFixture.subscribe(plain, 'BTC-USD');
    const service = fx.server.context.service;
    // Five commands in one turn of the event loop.
    await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        service.execute((stamp) => submitCommand({ market: 'BTC-USD', side: 'BUY', price: 90 + i, quantity: 1 }, alice.trader_id, stamp)),
      ),
    );
    const batch = await batched.nextType('batch');
    const messages = batch['messages'] as Frame[];
    expect(messages.map((m) => [m.type, m['sequence']])).to.deep.equal([1, 2, 3, 4, 5].map((i) => ['delta', (snap['sequence'] as number) + i]));
    const deltas: Frame[] = [];
    for (let i = 0; i < 5; i++) deltas.push(await plain.nextType('delta'));
    expect(deltas).to.deep.equal(messages);
    expect(plain.untaken('batch')).to.deep.equal([]);
  });
});
