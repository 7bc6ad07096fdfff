// The spectator's feed outside the browser, against a fake socket: tickers for the watched markets, the
// l2 book of the selected one (a fresh snapshot after a sequence gap or a resync_required), standings
// when public, and everything subscribed again on reconnect.
import { expect } from 'chai';
import type { FeedSocket } from '../../web/src/market-feed.ts';
import { PublicFeed } from '../../web/src/public-feed.ts';
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

const level = (price: number, quantity: number, orders = 1) => ({ price, quantity, orders });
const ticker = (market: string, trades: number, last: number | null) => ({
  type: 'ticker' as const, market, best_bid: 99, best_bid_quantity: 1, best_ask: 101, best_ask_quantity: 2, last_price: last, last_quantity: last === null ? null : 1, volume: trades, high: last, low: last, trades,
});

describe('web: PublicFeed', () => {
  let socket: FakeSocket;
  let feed: PublicFeed;

  beforeEach(() => {
    socket = new FakeSocket();
    feed = new PublicFeed(socket);
    feed.watch(['A-USD', 'B-USD']);
    feed.showBook('A-USD');
    expect(socket.takeSent()).to.deep.equal([
      { op: 'subscribe', channel: 'ticker', market: 'A-USD' },
      { op: 'subscribe', channel: 'ticker', market: 'B-USD' },
      { op: 'subscribe', channel: 'l2', market: 'A-USD' },
    ]);
    socket.deliver({ type: 'snapshot', channel: 'l2', market: 'A-USD', sequence: 4, depth: null, bids: [level(99, 1)], asks: [level(101, 2)] });
  });

  it('applies l2 updates in sequence: changed levels replace, quantity 0 removes', () => {
    socket.deliver({ type: 'update', channel: 'l2', market: 'A-USD', sequence: 5, bids: [level(99, 0, 0), level(98, 3, 2)], asks: [] });
    expect(feed.book?.sequence).to.equal(5);
    expect(feed.book?.levels('BUY')).to.deep.equal([level(98, 3, 2)]);
    expect(feed.book?.levels('SELL')).to.deep.equal([level(101, 2)]);
    expect(feed.book?.orderCount).to.equal(3);
  });

  it('a gap or a resync_required asks for a fresh snapshot', () => {
    socket.deliver({ type: 'update', channel: 'l2', market: 'A-USD', sequence: 7, bids: [], asks: [] });
    expect(socket.takeSent()).to.deep.equal([{ op: 'subscribe', channel: 'l2', market: 'A-USD' }]);
    expect(feed.book?.ready).to.equal(false);
    socket.deliver({ type: 'resync_required', channel: 'l2', market: 'A-USD', reason: 'lagged' });
    expect(socket.takeSent()).to.deep.equal([{ op: 'subscribe', channel: 'l2', market: 'A-USD' }]);
    expect(feed.resyncs).to.equal(2);
  });

  it('switching the book unsubscribes the old one; an l3 snapshot is not taken for l2', () => {
    feed.showBook('B-USD');
    expect(socket.takeSent()).to.deep.equal([{ op: 'unsubscribe', channel: 'l2', market: 'A-USD' }, { op: 'subscribe', channel: 'l2', market: 'B-USD' }]);
    socket.deliver({ type: 'snapshot', market: 'B-USD', sequence: 9, bids: [], asks: [] });
    expect(feed.book?.ready).to.equal(false);
  });

  it('keeps tickers, and a price point per ticker that brought trades', () => {
    socket.deliver(ticker('A-USD', 3, 100));
    socket.deliver(ticker('A-USD', 5, 102));
    socket.deliver(ticker('A-USD', 5, 102));
    expect(feed.tickers.get('A-USD')?.last_price).to.equal(102);
    expect(feed.trades('A-USD').map((t) => [t.price, t.trades])).to.deep.equal([[102, 2]]);
    feed.watch(['B-USD']);
    expect(socket.takeSent()).to.deep.equal([{ op: 'unsubscribe', channel: 'ticker', market: 'A-USD' }]);
    expect(feed.tickers.has('A-USD')).to.equal(false);
  });

  it('standings: shown when sent, hidden when refused; everything is subscribed again on reconnect', () => {
    socket.reconnect();
    expect(socket.takeSent()).to.deep.equal([
      { op: 'subscribe', channel: 'ticker', market: 'A-USD' },
      { op: 'subscribe', channel: 'ticker', market: 'B-USD' },
      { op: 'subscribe', channel: 'l2', market: 'A-USD' },
      { op: 'subscribe', channel: 'standings' },
    ]);
    socket.deliver({ type: 'error', code: 'standings_not_public', message: 'live standings are not public' });
    expect(feed.standingsPublic).to.equal(false);
    socket.deliver({ type: 'standings', seq: 3, time: '2026-01-01T00:00:00.000000Z', rows: [{ rank: 1, username: 'a', net_pnl: 1, realized_pnl: 1, unrealized_pnl: 0, gross_exposure: 0 }] });
    expect(feed.standingsPublic).to.equal(true);
    expect(feed.standings).to.have.length(1);
  });
});
