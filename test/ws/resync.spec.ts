// Gap handling: resuming with last_sequence from the ring, falling back to a snapshot, and a slow
// client that lags (resync_required, subscription dropped) while another keeps up.
import { expect } from 'chai';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import { sleep, type Frame, type WsTestClient } from './support/ws-test-client.ts';
import { scrape, value } from '../support/metrics.ts';
import { ADMIN_TOKEN } from '../support/server.ts';

async function placeAndCancel(trader: WsTestClient, market: string, pairs: number, batch = 25): Promise<void> {
  for (let done = 0; done < pairs; done += batch) {
    const n = Math.min(batch, pairs - done);
    const acks = await Promise.all(Array.from({ length: n }, (_, i) => trader.request({ op: 'submit_order', request_id: rid('pc'), market, side: 'BUY', price: 10 + (i % 5), quantity: 1 })));
    await Promise.all(acks.map((a) => trader.request({ op: 'cancel_order', request_id: rid('pc'), order_id: (a['order'] as { id: string }).id })));
    trader.take('order_state');
  }
}

describe('ws resync', function () {
  this.timeout(30_000);

  describe('last_sequence', () => {
    let fx: ExchangeFixture;
    let alice: Trader;
    before(async () => {
      // A tiny ring (the server keeps max(WS_BROADCAST_BUFFER, 1024) deltas) is not configurable, so
      // these cases work against the default ring of 1,024.
      // Many orders in a moment from one trader: the per-trader budget is not under test here.
      fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: '100000' });
      alice = await fx.trader('alice');
      await fx.market('BTC-USD');
    });
    after(() => fx.stop());

    it('replays the missed deltas after a gap instead of a snapshot', async () => {
      const trader = await fx.clientAs(alice);
      const first = await fx.client();
      const snap = await ExchangeFixture.subscribe(first, 'BTC-USD');
      await placeAndCancel(trader, 'BTC-USD', 5);
      const seen = await first.next((f) => f.type === 'delta' && f['sequence'] === (snap['sequence'] as number) + 10, 'tenth delta');
      await first.close();
      await placeAndCancel(trader, 'BTC-USD', 3);
      const current = fx.server.context.service.state.marketData.sequence('BTC-USD');

      const again = await fx.client();
      again.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD', last_sequence: seen['sequence'], epoch: fx.server.context.epoch });
      expect(await again.nextType('subscribed')).to.deep.equal({ type: 'subscribed', channel: 'l3', market: 'BTC-USD', last_sequence: seen['sequence'], epoch: fx.server.context.epoch });
      const replayed: Frame[] = [];
      for (let s = (seen['sequence'] as number) + 1; s <= current; s++) replayed.push(await again.nextType('delta'));
      expect(replayed.map((d) => d['sequence'])).to.deep.equal(Array.from({ length: 6 }, (_, i) => (seen['sequence'] as number) + 1 + i));
      expect(again.untaken('snapshot')).to.deep.equal([]);
      // Live deltas continue right after the replay.
      await placeAndCancel(trader, 'BTC-USD', 1);
      expect(await again.nextType('delta')).to.include({ sequence: current + 1 });
    });

    it('answers with a snapshot when last_sequence is beyond the ring, ahead of the market, from another epoch, or without one in memory', async () => {
      const trader = await fx.clientAs(alice);
      await placeAndCancel(trader, 'BTC-USD', 530, 50);
      const current = fx.server.context.service.state.marketData.sequence('BTC-USD');
      expect(current).to.be.above(1024);
      // The last case: no epoch on an in-memory server, whose sequences start again at every start, so
      // the client's sequence may be of another lineage.
      const cases = [{ last_sequence: 1 }, { last_sequence: current + 5 }, { last_sequence: current - 1, epoch: 'some-other-epoch' }, { last_sequence: current - 1 }];
      for (const extra of cases) {
        const c = await fx.client();
        c.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD', ...extra });
        const snap = await c.nextType('snapshot');
        expect(snap['sequence'], JSON.stringify(extra)).to.equal(current);
        expect(c.untaken('subscribed')).to.deep.equal([]);
      }
      // Within the ring and the same epoch: a replay of exactly the missing delta.
      const c = await fx.client();
      c.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD', last_sequence: current - 1, epoch: fx.server.context.epoch });
      await c.nextType('subscribed');
      expect(await c.nextType('delta')).to.include({ sequence: current });
    });
  });

  describe('a slow consumer', () => {
    let fx: ExchangeFixture;
    let alice: Trader;
    let bob: Trader;
    before(async () => {
      fx = await ExchangeFixture.start({ WS_BROADCAST_BUFFER: '64', PER_USER_REQUESTS_PER_SECOND: '100000' });
      alice = await fx.trader('alice');
      bob = await fx.trader('bob');
      await fx.market('BTC-USD');
      await fx.market('ETH-USD');
    });
    after(() => fx.stop());

    it('gets resync_required and loses only that subscription while another client keeps up', async () => {
      const trader = await fx.clientAs(alice);
      const fast = await fx.client();
      const slow = await fx.clientAs(bob);
      const fastSnap = await ExchangeFixture.subscribe(fast, 'BTC-USD');
      const slowSnap = await ExchangeFixture.subscribe(slow, 'BTC-USD');
      await ExchangeFixture.subscribe(slow, 'ETH-USD');
      slow.ws.pause(); // stops reading: the kernel buffers fill, then the server's budget.

      // Enough market data to fill the socket buffers of a client that does not read.
      // About 9 MB of deltas: more than localhost's socket buffers hold for a peer that does not read.
      const PAIRS = 20_000;
      await placeAndCancel(trader, 'BTC-USD', PAIRS, 32);
      const current = fx.server.context.service.state.marketData.sequence('BTC-USD');
      expect(current).to.equal((fastSnap['sequence'] as number) + 2 * PAIRS);
      await fast.next((f) => f.type === 'delta' && f['sequence'] === current, 'fast client caught up', 10_000);
      const fastDeltas = fast.history.filter((f) => f.type === 'delta').map((f) => f['sequence']);
      expect(fastDeltas).to.deep.equal(Array.from({ length: 2 * PAIRS }, (_, i) => (fastSnap['sequence'] as number) + 1 + i));
      expect(fast.history.filter((f) => f.type === 'resync_required')).to.deep.equal([]);

      // A private event is never dropped: it still reaches the client that lagged.
      const bobElsewhere = await fx.clientAs(bob);
      const after = await bobElsewhere.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'SELL', price: 50, quantity: 1 });
      slow.ws.resume();
      const resync = await slow.nextType('resync_required', 10_000);
      // Operators see it too: /metrics counts the dropped subscription.
      expect(value(await scrape(`${fx.server.url}/metrics`, ADMIN_TOKEN), 'exchange_ws_lagging_subscriptions_dropped_total')).to.equal(1);
      const got = slow.history.filter((f) => f.type === 'delta' && f['market'] === 'BTC-USD').map((f) => f['sequence'] as number);
      expect(got.length).to.be.above(0).and.below(2 * PAIRS);
      expect(got).to.deep.equal(Array.from({ length: got.length }, (_, i) => (slowSnap['sequence'] as number) + 1 + i));
      expect(resync).to.deep.include({ type: 'resync_required', channel: 'l3', market: 'BTC-USD', expected_sequence: (got.at(-1) as number) + 1, reason: 'market data lagged; resubscribe for a fresh snapshot' });
      expect(resync['current_sequence']).to.be.at.least(resync['expected_sequence'] as number).and.at.most(current);
      await slow.next((f) => f.type === 'order_state' && (f['order'] as { id: string }).id === (after['order'] as { id: string }).id, 'private event after lag', 10_000);
      // Only the subscription that overflowed was dropped: ETH-USD (quiet meanwhile) still flows.
      await bobElsewhere.request({ op: 'submit_order', request_id: rid(), market: 'ETH-USD', side: 'SELL', price: 50, quantity: 1 });
      await slow.next((f) => f.type === 'delta' && f['market'] === 'ETH-USD', 'ETH delta', 10_000);
      expect(slow.history.filter((f) => f.type === 'resync_required')).to.have.length(1);
      // The BTC subscription is gone: nothing after the resync, until a resubscribe gives a snapshot.
      const resyncAt = slow.history.indexOf(resync);
      expect(slow.history.slice(resyncAt).filter((f) => f.type === 'delta' && f['market'] === 'BTC-USD')).to.deep.equal([]);
      const fresh = await ExchangeFixture.subscribe(slow, 'BTC-USD');
      const now = fx.server.context.service.state.marketData.sequence('BTC-USD');
      expect(fresh['sequence']).to.equal(now);
      expect(now).to.equal(current + 1); // bob's order above
      await placeAndCancel(trader, 'BTC-USD', 1);
      await slow.next((f) => f.type === 'delta' && f['market'] === 'BTC-USD' && f['sequence'] === now + 1, 'live again');
    });

    it('terminates a client that stops reading while it keeps sending, instead of buffering its replies', async () => {
      const c = await fx.client();
      c.ws.pause();
      const closed = new Promise<void>((resolve) => c.ws.once('close', () => resolve()));
      // Pongs cannot be dropped: the server stops reading this client once its replies back up, and
      // cuts it off when they have not moved for the stall timeout.
      const pad = 'p'.repeat(2000);
      for (let sent = 0; sent < 20_000; sent++) c.send({ op: 'ping', request_id: `${pad}${sent}` });
      const started = Date.now();
      let done = false;
      void closed.then(() => (done = true));
      while (!done && Date.now() - started < 15_000) await sleep(50);
      expect(done, 'the server cut the client off').to.equal(true);
    });
  });
});
