// The dashboard's subscription logic outside the browser, against a fake socket: subscribe per market,
// a fresh snapshot after a sequence gap or a resync_required, and on reconnect a resume from the last
// sequence (replayed deltas) or, when the server answers with one, a snapshot.
import { expect } from 'chai';
import { MarketFeed, type FeedSocket } from '../../web/src/market-feed.ts';
import type { ServerMessage } from '../../web/src/server-messages.ts';

class FakeSocket implements FeedSocket {
  readonly sent: object[] = [];
  private listener: ((m: ServerMessage) => void) | null = null;
  private hook: (() => void) | null = null;

  send(frame: object): boolean {
    this.sent.push(frame);
    return true;
  }

  onMessage(listener: (m: ServerMessage) => void): void {
    this.listener = listener;
  }

  onOpen(hook: () => void): void {
    this.hook = hook;
  }

  deliver(message: ServerMessage): void {
    this.listener?.(message);
  }

  reconnect(): void {
    this.hook?.();
  }

  takeSent(): object[] {
    return this.sent.splice(0);
  }
}

const order = (id: string, price: number) => ({ order_id: id, side: 'BUY' as const, price, remaining: 1, created_at: '2026-01-01T00:00:00.000000Z' });

describe('web: MarketFeed', () => {
  let socket: FakeSocket;
  let feed: MarketFeed;

  beforeEach(() => {
    socket = new FakeSocket();
    feed = new MarketFeed(socket);
    feed.watch(['A-USD']);
    expect(socket.takeSent()).to.deep.equal([{ op: 'subscribe', channel: 'l3', market: 'A-USD' }]);
    socket.deliver({ type: 'snapshot', market: 'A-USD', sequence: 3, epoch: 'e1', bids: [order('o1', 100)], asks: [] });
  });

  it('applies deltas in sequence and records trades', () => {
    socket.deliver({ type: 'delta', market: 'A-USD', sequence: 4, events: [{ kind: 'order_added', order: order('o2', 99) }] });
    socket.deliver({ type: 'delta', market: 'A-USD', sequence: 5, events: [{ kind: 'order_removed', order_id: 'o1', side: 'BUY', price: 100 }, { kind: 'trade', maker_order_id: 'o1', taker_order_id: 't', price: 100, quantity: 1 }] });
    const book = feed.books.get('A-USD');
    expect([book?.sequence, book?.bestBid(), feed.lastPrice('A-USD'), feed.resyncs]).to.deep.equal([5, 99, 100, 0]);
    expect(socket.takeSent()).to.deep.equal([]);
  });

  it('resubscribes for a fresh snapshot on a gap, ignoring deltas until it arrives', () => {
    socket.deliver({ type: 'delta', market: 'A-USD', sequence: 5, events: [] });
    // The server still has the subscription, and sends no new snapshot to a market followed
    // (docs/websocket.md, "Client frames: choices").
    expect(socket.takeSent()).to.deep.equal([
      { op: 'unsubscribe', channel: 'l3', market: 'A-USD' },
      { op: 'subscribe', channel: 'l3', market: 'A-USD' },
    ]);
    expect(feed.resyncs).to.equal(1);
    socket.deliver({ type: 'delta', market: 'A-USD', sequence: 6, events: [] });
    expect(socket.takeSent()).to.deep.equal([]);
    socket.deliver({ type: 'snapshot', market: 'A-USD', sequence: 6, epoch: 'e1', bids: [], asks: [] });
    expect(feed.books.get('A-USD')?.ready).to.equal(true);
  });

  it('resubscribes on resync_required for its market', () => {
    socket.deliver({ type: 'resync_required', channel: 'l3', market: 'A-USD', reason: 'market data lagged; resubscribe for a fresh snapshot' });
    expect(socket.takeSent()).to.deep.equal([{ op: 'subscribe', channel: 'l3', market: 'A-USD' }]);
    expect(feed.resyncs).to.equal(1);
  });

  it('on reconnect resumes from the last sequence and applies the replayed deltas', () => {
    socket.reconnect();
    expect(socket.takeSent()).to.deep.equal([{ op: 'subscribe', channel: 'l3', market: 'A-USD', last_sequence: 3, epoch: 'e1' }]);
    socket.deliver({ type: 'subscribed', market: 'A-USD', last_sequence: 3, epoch: 'e1' });
    socket.deliver({ type: 'delta', market: 'A-USD', sequence: 4, events: [{ kind: 'order_added', order: order('o2', 101) }] });
    expect(feed.books.get('A-USD')?.bestBid()).to.equal(101);
  });

  it('unsubscribes from markets no longer listed', () => {
    feed.watch([]);
    expect(socket.takeSent()).to.deep.equal([{ op: 'unsubscribe', channel: 'l3', market: 'A-USD' }]);
    expect(feed.books.size).to.equal(0);
  });
});
