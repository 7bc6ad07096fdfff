// The dashboard's book rules, outside the browser: snapshot then strictly sequenced deltas, FIFO within
// a price, gaps detected (the page then resubscribes), stale deltas ignored, trades reported.
import { expect } from 'chai';
import type { BookOrder } from '../../web/src/api-types.ts';
import { L3Book, type BookTrade } from '../../web/src/l3-book.ts';
import type { DeltaMessage, L3Event, SnapshotMessage } from '../../web/src/server-messages.ts';

function order(id: string, side: 'BUY' | 'SELL', price: number, remaining: number): BookOrder {
  return { order_id: id, side, price, remaining, created_at: '2026-01-01T00:00:00.000000Z' };
}

function snapshot(sequence: number, bids: BookOrder[], asks: BookOrder[]): SnapshotMessage {
  return { type: 'snapshot', market: 'BTC-USD', sequence, epoch: 'e1', bids, asks };
}

function delta(sequence: number, ...events: L3Event[]): DeltaMessage {
  return { type: 'delta', market: 'BTC-USD', sequence, events };
}

describe('web: L3Book', () => {
  it('ignores deltas until a snapshot arrives', () => {
    const book = new L3Book('BTC-USD');
    expect(book.applyDelta(delta(1, { kind: 'order_added', order: order('a', 'BUY', 100, 1) }))).to.equal('not_ready');
    expect(book.orderCount).to.equal(0);
  });

  it('aggregates levels best first, orders in time priority within a price', () => {
    const book = new L3Book('BTC-USD');
    book.loadSnapshot(snapshot(10, [order('b1', 'BUY', 100, 3), order('b2', 'BUY', 100, 2), order('b3', 'BUY', 99, 7)], [order('s1', 'SELL', 101, 4), order('s2', 'SELL', 102, 1)]));
    expect(book.applyDelta(delta(11, { kind: 'order_added', order: order('b4', 'BUY', 100, 5) }))).to.equal('applied');
    // An update keeps the order's place in the queue.
    expect(book.applyDelta(delta(12, { kind: 'order_updated', order: order('b1', 'BUY', 100, 1) }))).to.equal('applied');
    const bids = book.levels('BUY');
    expect(bids.map((l) => [l.price, l.quantity])).to.deep.equal([
      [100, 8],
      [99, 7],
    ]);
    expect(bids[0]?.orders.map((o) => o.order_id)).to.deep.equal(['b1', 'b2', 'b4']);
    expect(book.levels('SELL').map((l) => l.price)).to.deep.equal([101, 102]);
    expect([book.bestBid(), book.bestAsk(), book.sequence]).to.deep.equal([100, 101, 12]);
  });

  it('reports a gap without applying it, and ignores a stale delta', () => {
    const book = new L3Book('BTC-USD');
    book.loadSnapshot(snapshot(5, [order('b1', 'BUY', 100, 3)], []));
    expect(book.applyDelta(delta(5, { kind: 'order_removed', order_id: 'b1', side: 'BUY', price: 100 }))).to.equal('stale');
    expect(book.applyDelta(delta(7, { kind: 'order_removed', order_id: 'b1', side: 'BUY', price: 100 }))).to.equal('gap');
    expect([book.orderCount, book.sequence]).to.deep.equal([1, 5]);
    book.invalidate();
    expect(book.applyDelta(delta(6, { kind: 'order_removed', order_id: 'b1', side: 'BUY', price: 100 }))).to.equal('not_ready');
    book.loadSnapshot(snapshot(7, [], []));
    expect([book.ready, book.orderCount, book.sequence]).to.deep.equal([true, 0, 7]);
  });

  it('reports each trade with the maker side taken from the maker update in the same delta', () => {
    const book = new L3Book('BTC-USD');
    book.loadSnapshot(snapshot(1, [], [order('s1', 'SELL', 101, 2), order('s2', 'SELL', 101, 5)]));
    const trades: BookTrade[] = [];
    const outcome = book.applyDelta(
      delta(
        2,
        { kind: 'order_removed', order_id: 's1', side: 'SELL', price: 101 },
        { kind: 'trade', maker_order_id: 's1', taker_order_id: 't', price: 101, quantity: 2 },
        { kind: 'order_updated', order: order('s2', 'SELL', 101, 4) },
        { kind: 'trade', maker_order_id: 's2', taker_order_id: 't', price: 101, quantity: 1 },
      ),
      (t) => trades.push(t),
    );
    expect(outcome).to.equal('applied');
    expect(trades.map((t) => [t.price, t.quantity, t.maker_side, t.sequence])).to.deep.equal([
      [101, 2, 'SELL', 2],
      [101, 1, 'SELL', 2],
    ]);
    expect(book.levels('SELL')).to.deep.equal([{ price: 101, quantity: 4, orders: [order('s2', 'SELL', 101, 4)] }]);
  });
});
