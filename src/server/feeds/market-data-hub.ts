// The conflated public channels: l2 (price levels), ticker and standings. Deltas are folded as they
// are published (cheap: a map update per book change); subscribers hear nothing until the next tick of
// one timer, which builds each market's update once per depth, encodes it once, and queues the same
// Buffer on every subscriber. So a subscriber costs at most one frame per market per interval, however
// fast orders come.
import type { Side } from '../../events/types.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import type { L3Delta } from '../../projections/market-data.ts';
import type { Connection } from '../ws/connection.ts';
import { nowRfc3339 } from '../clock.ts';
import { feedResyncFrame, l2SnapshotFrame, l2UpdateFrame, standingsFrame, tickerFrame, type PublicStandingsRow } from './feed-frames.ts';
import { feedKey, type FeedChannel } from './feed-subscription.ts';
import { L2Conflator } from './l2-conflator.ts';
import { TickerStats } from './ticker-stats.ts';

export interface FeedSettings {
  /** At most one l2 update and one ticker per market per this many ms. */
  readonly intervalMs: number;
  /** At most one standings frame per this many ms. */
  readonly standingsIntervalMs: number;
  /** Live standings are public (PUBLIC_STANDINGS). */
  readonly publicStandings: boolean;
  /** The time standings frames carry (the server's clock; the wall clock when not given). */
  readonly now?: () => string;
}

export const STANDINGS_INTERVAL_MS = 1000;

interface MarketFeeds {
  readonly l2: L2Conflator;
  readonly ticker: TickerStats;
  /** l2 subscribers by depth (null: full depth). */
  readonly l2Subscribers: Map<number | null, Set<Connection>>;
  readonly tickerSubscribers: Set<Connection>;
  lastTicker: string | null;
}

export class MarketDataHub {
  private readonly state: ExchangeState;
  private readonly settings: FeedSettings;
  private readonly now: () => string;
  private readonly markets = new Map<string, MarketFeeds>();
  private readonly dirty = new Set<string>();
  private readonly standingsSubscribers = new Set<Connection>();
  private lastStandingsSeq = -1;
  private lastStandings: string | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly standingsTimer: NodeJS.Timeout;

  constructor(state: ExchangeState, settings: FeedSettings) {
    this.state = state;
    this.settings = settings;
    this.now = settings.now ?? nowRfc3339;
    // Start from the books and the session's trades as recovered; deltas carry it on from here.
    for (const market of state.books.markets()) this.feeds(market).l2.book.loadOrders(restingOrders(state, market));
    this.seedTickers();
    this.timer = setInterval(() => this.tick(), settings.intervalMs);
    this.timer.unref();
    this.standingsTimer = setInterval(() => this.tickStandings(), settings.standingsIntervalMs);
    this.standingsTimer.unref();
  }

  get standingsArePublic(): boolean {
    return this.settings.publicStandings;
  }

  close(): void {
    clearInterval(this.timer);
    clearInterval(this.standingsTimer);
  }

  onDelta(delta: L3Delta): void {
    const feeds = this.feeds(delta.market);
    for (const e of delta.events) {
      if (e.kind === 'trade') feeds.ticker.trade(e.price, e.quantity);
      else feeds.l2.book.apply(e);
    }
    this.dirty.add(delta.market);
  }

  /** A reset of all trading: the session's trades start again. */
  onReset(): void {
    for (const [market, feeds] of this.markets) {
      Object.assign(feeds.ticker, new TickerStats());
      this.dirty.add(market);
    }
  }

  subscribeL2(connection: Connection, market: string, depth: number | null): void {
    this.unsubscribe(connection, 'l2', market);
    const feeds = this.feeds(market);
    const snapshot = feeds.l2.snapshot(depth);
    index(feeds.l2Subscribers, depth, connection);
    connection.feeds.set(feedKey('l2', market), { channel: 'l2', market, depth });
    connection.send(l2SnapshotFrame(market, snapshot.sequence, depth, snapshot.bids, snapshot.asks));
  }

  subscribeTicker(connection: Connection, market: string): void {
    const feeds = this.feeds(market);
    feeds.tickerSubscribers.add(connection);
    connection.feeds.set(feedKey('ticker', market), { channel: 'ticker', market, depth: null });
    connection.send(tickerFrame(feeds.ticker.view(market, feeds.l2.book)).payload);
  }

  /** False (nothing subscribed) while standings are not public. */
  subscribeStandings(connection: Connection): boolean {
    if (!this.settings.publicStandings) return false;
    this.standingsSubscribers.add(connection);
    connection.feeds.set(feedKey('standings', null), { channel: 'standings', market: null, depth: null });
    connection.send(standingsFrame(this.state.seq, this.now(), this.standingsRows()).payload);
    return true;
  }

  unsubscribe(connection: Connection, channel: FeedChannel, market: string | null): void {
    const key = feedKey(channel, market);
    const subscription = connection.feeds.get(key);
    if (subscription === undefined) return;
    connection.feeds.delete(key);
    if (channel === 'standings') {
      this.standingsSubscribers.delete(connection);
      return;
    }
    const feeds = this.markets.get(market as string);
    if (feeds === undefined) return;
    if (channel === 'ticker') feeds.tickerSubscribers.delete(connection);
    else {
      const set = feeds.l2Subscribers.get(subscription.depth);
      set?.delete(connection);
      if (set !== undefined && set.size === 0) {
        feeds.l2Subscribers.delete(subscription.depth);
        if (subscription.depth !== null) feeds.l2.forget(subscription.depth);
      }
    }
    // A market the exchange does not have (a name a client made up, or one deleted) keeps its feeds only
    // while someone follows it: otherwise subscribing and unsubscribing made-up names grew the hub
    // without bound, ~2 KB a name, until the process ran out of memory.
    if (feeds.tickerSubscribers.size === 0 && feeds.l2Subscribers.size === 0 && this.state.markets.get(market as string) === undefined) this.markets.delete(market as string);
  }

  /** Markets with feeds held (for tests). */
  get marketCount(): number {
    return this.markets.size;
  }

  /** The connection is gone. */
  remove(connection: Connection): void {
    for (const s of [...connection.feeds.values()]) this.unsubscribe(connection, s.channel, s.market);
  }

  /** Builds and queues every market's due l2 update and ticker (the timer calls it). */
  tick(): void {
    for (const market of this.dirty) {
      const feeds = this.markets.get(market);
      if (feeds === undefined) continue;
      const updates = feeds.l2.tick();
      if (updates !== null) {
        for (const [depth, levels] of updates) {
          const subscribers = feeds.l2Subscribers.get(depth);
          if (subscribers === undefined || subscribers.size === 0) continue;
          const frame = l2UpdateFrame(market, feeds.l2.sequence, depth, levels.bids, levels.asks);
          for (const connection of subscribers) {
            if (connection.queue.offerBroadcast(frame)) continue;
            // A dropped update would leave a gap: the subscription ends and the client resubscribes.
            this.unsubscribe(connection, 'l2', market);
            connection.send(feedResyncFrame('l2', market, feeds.l2.sequence, feeds.l2.sequence));
          }
        }
      }
      if (feeds.tickerSubscribers.size === 0) feeds.lastTicker = null;
      else {
        const view = feeds.ticker.view(market, feeds.l2.book);
        const key = JSON.stringify(view);
        if (key !== feeds.lastTicker) {
          feeds.lastTicker = key;
          // A ticker is whole in itself: one a slow client cannot take is skipped, the next replaces it.
          const frame = tickerFrame(view);
          for (const connection of feeds.tickerSubscribers) connection.queue.offerBroadcast(frame);
        }
      }
    }
    this.dirty.clear();
  }

  tickStandings(): void {
    if (!this.settings.publicStandings || this.standingsSubscribers.size === 0) return;
    const seq = this.state.seq;
    if (seq === this.lastStandingsSeq) return;
    this.lastStandingsSeq = seq;
    const rows = this.standingsRows();
    const key = JSON.stringify(rows);
    if (key === this.lastStandings) return;
    this.lastStandings = key;
    const frame = standingsFrame(seq, this.now(), rows);
    for (const connection of this.standingsSubscribers) connection.queue.offerBroadcast(frame);
  }

  private standingsRows(): PublicStandingsRow[] {
    return this.state.leaderboard.at(this.state.seq).map(({ trader_id: _hidden, ...row }) => row);
  }

  private feeds(market: string): MarketFeeds {
    let feeds = this.markets.get(market);
    if (feeds === undefined) {
      feeds = { l2: new L2Conflator(), ticker: new TickerStats(), l2Subscribers: new Map(), tickerSubscribers: new Set(), lastTicker: null };
      this.markets.set(market, feeds);
    }
    return feeds;
  }

  // The session's figures as the state holds them (session-stats.ts): published deltas carry them on.
  private seedTickers(): void {
    for (const m of this.state.markets.list()) {
      const stats = this.state.sessionStats.of(m.market_id);
      if (stats !== undefined) this.feeds(m.market_id).ticker.seed(stats);
    }
  }
}

/** A market's resting orders as the l2 book takes them, read straight from the books. */
function* restingOrders(state: ExchangeState, market: string): Generator<{ order_id: string; side: Side; price: number; remaining: number }> {
  const book = state.books.book(market);
  if (book === undefined) return;
  const orders = state.books.orders;
  for (const side of [book.bids, book.asks]) for (const slot of side.orderSlots()) yield { order_id: orders.id(slot), side: orders.side(slot), price: orders.price(slot), remaining: orders.remaining(slot) };
}

function index<K>(map: Map<K, Set<Connection>>, key: K, connection: Connection): void {
  let set = map.get(key);
  if (set === undefined) {
    set = new Set();
    map.set(key, set);
  }
  set.add(connection);
}
