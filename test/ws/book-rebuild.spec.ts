// Snapshot + deltas rebuild exactly the book the traders' open orders show, over a seeded random
// session of thousands of order operations sent over WebSocket, for a subscriber present from the
// start, one that joins midway, and one that resumes midway with last_sequence.
import { expect } from 'chai';
import { ExchangeFixture, type Trader } from './support/exchange-fixture.ts';
import type { Frame, WsTestClient } from './support/ws-test-client.ts';

interface BookOrder {
  readonly order_id: string;
  readonly side: 'BUY' | 'SELL';
  readonly price: number;
  remaining: number;
  readonly created_at: string;
  readonly arrival: number;
}

/** A client-side l3 book: applies a snapshot and then deltas, insisting on gap-free sequences. */
class L3Book {
  readonly orders = new Map<string, BookOrder>();
  sequence = -1;
  private arrivals = 0;

  applySnapshot(s: Frame): void {
    this.orders.clear();
    for (const o of [...(s['bids'] as BookOrder[]), ...(s['asks'] as BookOrder[])]) this.orders.set(o.order_id, { ...o, arrival: this.arrivals++ });
    this.sequence = s['sequence'] as number;
  }

  applyDelta(d: Frame): void {
    expect(d['sequence'], 'gap-free sequence').to.equal(this.sequence + 1);
    this.sequence = d['sequence'] as number;
    for (const e of d['events'] as Record<string, unknown>[]) {
      switch (e['kind']) {
        case 'order_added': {
          const o = e['order'] as BookOrder;
          expect(this.orders.has(o.order_id)).to.equal(false);
          this.orders.set(o.order_id, { ...o, arrival: this.arrivals++ });
          break;
        }
        case 'order_updated': {
          const o = e['order'] as BookOrder;
          const mine = this.orders.get(o.order_id);
          expect(mine, 'updated order is in the book').to.not.equal(undefined);
          (mine as BookOrder).remaining = o.remaining;
          break;
        }
        case 'order_removed':
          expect(this.orders.delete(e['order_id'] as string), 'removed order was in the book').to.equal(true);
          break;
        case 'trade':
          break;
        default:
          throw new Error(`unknown event ${String(e['kind'])}`);
      }
    }
    this.checkUncrossed();
  }

  private checkUncrossed(): void {
    let bestBid = -Infinity;
    let bestAsk = Infinity;
    for (const o of this.orders.values()) {
      if (o.side === 'BUY') bestBid = Math.max(bestBid, o.price);
      else bestAsk = Math.min(bestAsk, o.price);
    }
    expect(bestBid, 'book never crossed between deltas').to.be.below(bestAsk);
  }

  /** Best price first, then time priority (the order they came to rest). */
  side(side: 'BUY' | 'SELL'): Omit<BookOrder, 'arrival'>[] {
    return [...this.orders.values()]
      .filter((o) => o.side === side)
      .sort((a, b) => (a.price === b.price ? a.arrival - b.arrival : side === 'BUY' ? b.price - a.price : a.price - b.price))
      .map(({ arrival: _, ...o }) => o);
  }

  /** Applies every frame of this market the client received since `from` in history. */
  follow(client: WsTestClient, market: string, from: number): number {
    for (let i = from; i < client.history.length; i++) {
      const f = client.history[i] as Frame;
      if (f['market'] !== market) continue;
      if (f.type === 'snapshot') this.applySnapshot(f);
      else if (f.type === 'delta') this.applyDelta(f);
      else if (f.type === 'subscribed') this.sequence = f['last_sequence'] as number;
      else if (f.type === 'resync_required') throw new Error('unexpected resync_required');
    }
    return client.history.length;
  }
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('ws book rebuild', function () {
  this.timeout(60_000);
  let fx: ExchangeFixture;
  before(async () => {
    // A fast random session of many traders' ops: the per-trader budget is not under test here.
    fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: '100000' });
  });
  after(() => fx.stop());

  it('snapshot + deltas equal the open orders of all traders after a random session of 4,000 operations', async () => {
    const markets = ['BTC-USD', 'ETH-USD'];
    for (const m of markets) await fx.market(m);
    const traders: Trader[] = [];
    for (let i = 0; i < 8; i++) traders.push(await fx.trader(`t${i}`));
    const clients = await Promise.all(traders.map((t) => fx.clientAs(t)));
    const early = await fx.client();
    for (const m of markets) await ExchangeFixture.subscribe(early, m);

    const random = mulberry32(20260401);
    const open = traders.map(() => [] as string[]);
    const counts = { ack: 0, reject: 0, submit: 0, cancel: 0, amend: 0 };
    let late: WsTestClient | null = null;
    let resumer: WsTestClient | null = null;
    let resumeFrom = 0;
    const ROUNDS = 500;
    for (let round = 0; round < ROUNDS; round++) {
      if (round === 200) {
        late = await fx.client();
        for (const m of markets) await ExchangeFixture.subscribe(late, m);
      }
      if (round === 250) {
        // A subscriber that saw the first part, then resumes BTC-USD with last_sequence.
        resumeFrom = fx.server.context.service.state.marketData.sequence('BTC-USD');
      }
      if (round === 300) {
        resumer = await fx.client();
        resumer.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD', last_sequence: resumeFrom, epoch: fx.server.context.epoch });
        await resumer.nextType('subscribed');
      }
      // Each trader sends one operation per round; all in flight at once.
      await Promise.all(
        clients.map(async (c, i) => {
          const mine = open[i] as string[];
          const roll = random();
          const request_id = `${round}-${i}`;
          let frame: Record<string, unknown> & { request_id: string };
          if (roll < 0.7 || mine.length === 0) {
            const side = random() < 0.5 ? 'BUY' : 'SELL';
            const offset = Math.floor(random() * 12) - (side === 'BUY' ? 8 : 3);
            frame = { op: 'submit_order', request_id, market: markets[Math.floor(random() * markets.length)], side, price: 100 + offset, quantity: 1 + Math.floor(random() * 9) };
            counts.submit++;
          } else if (roll < 0.9) {
            frame = { op: 'cancel_order', request_id, order_id: mine[Math.floor(random() * mine.length)] };
            counts.cancel++;
          } else {
            frame = { op: 'amend_order', request_id, order_id: mine[Math.floor(random() * mine.length)], remaining: 1 };
            counts.amend++;
          }
          const reply = await c.request(frame);
          if (reply.type === 'ack') {
            counts.ack++;
            if (frame['op'] === 'submit_order' && reply['resting'] === true) mine.push((reply['order'] as { id: string }).id);
            if (frame['op'] === 'cancel_order') mine.splice(mine.indexOf(frame['order_id'] as string), 1);
          } else {
            expect(reply.type).to.equal('reject');
            counts.reject++;
            // Filled since we last looked: forget it.
            if (reply['code'] === 'order_not_found') mine.splice(mine.indexOf(frame['order_id'] as string), 1);
          }
        }),
      );
    }
    expect(counts.ack + counts.reject).to.equal(ROUNDS * traders.length);
    expect(counts.ack).to.be.above(counts.reject);
    // Wait until every subscriber has the last delta of each market.
    for (const m of markets) {
      const last = fx.server.context.service.state.marketData.sequence(m);
      for (const c of [early, late as WsTestClient]) await c.next((f) => f.type === 'delta' && f['market'] === m && f['sequence'] === last, `${m} delta ${last}`, 10_000);
    }
    await (resumer as WsTestClient).next((f) => f.type === 'delta' && f['market'] === 'BTC-USD' && f['sequence'] === fx.server.context.service.state.marketData.sequence('BTC-USD'), 'resumer caught up', 10_000);

    const allOpen = (await Promise.all(traders.map((t) => fx.openOrders(t)))).flat();
    for (const m of markets) {
      const expected = new Map(allOpen.filter((o) => o.market === m).map((o) => [o.id, { order_id: o.id, side: o.side, price: o.price, remaining: o.remaining, created_at: o.created_at }]));
      expect(expected.size, `${m} has resting orders`).to.be.above(10);
      const books = [early, late as WsTestClient].map((c) => {
        const book = new L3Book();
        book.follow(c, m, 0);
        return book;
      });
      if (m === 'BTC-USD') {
        // The resumer starts from the early subscriber's book as it stood at resumeFrom.
        const book = new L3Book();
        const cut = early.history.findIndex((f) => f.type === 'delta' && f['market'] === m && f['sequence'] === resumeFrom);
        book.follow(early, m, 0);
        const replayed = new L3Book();
        replayed.follow({ history: early.history.slice(0, cut + 1) } as WsTestClient, m, 0);
        replayed.follow(resumer as WsTestClient, m, 0);
        books.push(replayed);
        const resumed = (resumer as WsTestClient).history.filter((f) => f['market'] === m);
        expect(resumed.some((f) => f.type === 'snapshot'), 'resumed without a snapshot').to.equal(false);
        expect(resumed[1], 'first replayed delta').to.include({ type: 'delta', sequence: resumeFrom + 1 });
        expect(book.sequence).to.equal(replayed.sequence);
      }
      for (const book of books) {
        expect(new Map([...book.orders].map(([id, { arrival: _, ...o }]) => [id, o]))).to.deep.equal(expected);
        // And in the snapshot's order: best price first, FIFO within a price.
        const snapshot = fx.server.context.service.state.marketData.snapshot(m);
        expect(book.side('BUY')).to.deep.equal(snapshot.bids);
        expect(book.side('SELL')).to.deep.equal(snapshot.asks);
      }
    }
  });
});
