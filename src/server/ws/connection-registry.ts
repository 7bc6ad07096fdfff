// Who gets what: every open connection, the connections subscribed to each market and those
// authenticated as each trader, and the routing of the service's publications to them. Each frame is
// encoded once and the same Buffer is queued on every connection that receives it.
import type { ExchangeEvent } from '../../events/types.ts';
import type { L3Delta } from '../../projections/market-data.ts';
import { tradeView } from '../../projections/history/trade-tape.ts';
import type { PrivateEvent } from '../../projections/private-feed.ts';
import type { KeyRecord } from '../../projections/api-keys.ts';
import type { AdminMessageView, TraderView } from '../../projections/views.ts';
import type { Connection } from './connection.ts';
import { DeltaRun } from './delta-run.ts';
import type { FlushScheduler } from './flush-scheduler.ts';
import { WireFrame } from './wire-frame.ts';
import { ACCOUNT_RESYNC_FRAME, adminMessageFrame, deltaFrame, l3ResyncFrame, privateEventFrame, tradeFrame, tradesResyncFrame } from './frames.ts';

/** The close code of a session whose credentials were revoked (4001: an application code). */
export const REVOKED_CLOSE_CODE = 4001;

export class ConnectionRegistry {
  readonly all = new Set<Connection>();
  private readonly byMarket = new Map<string, Set<Connection>>();
  private readonly byTrader = new Map<string, Set<Connection>>();
  private readonly byTradesMarket = new Map<string, Set<Connection>>();
  /** Per trader, its connections authenticated with cancel_on_disconnect. */
  private readonly cancelOnDisconnect = new Map<string, Set<Connection>>();
  /** Connections authenticated with a key that expires: the expiry sweep looks at these only. */
  readonly expiring = new Set<Connection>();
  // A delta's frame, kept while the feed's ring keeps the delta, so a replay does not encode it again.
  private readonly frames = new WeakMap<L3Delta, WireFrame>();
  /** The last sequence published per market: what heartbeats report. */
  private readonly published = new Map<string, number>();
  /** Subscriptions dropped because their connection lagged (resync_required sent), since start. */
  lagDrops = 0;
  /** Told when a trader gains its first or loses its last cancel_on_disconnect connection. */
  private readonly flagChanged: (traderId: string, flagged: boolean) => void;
  private readonly scheduler: FlushScheduler;
  /** This turn's deltas per market, joined for the subscribers that take them all (delta-run.ts). */
  private readonly runs = new Map<string, DeltaRun>();
  private readonly sealRuns = (): void => {
    for (const run of this.runs.values()) run.seal();
    this.runs.clear();
  };

  constructor(initialSequences: Iterable<[string, number]>, scheduler: FlushScheduler, flagChanged: (traderId: string, flagged: boolean) => void) {
    for (const [market, sequence] of initialSequences) this.published.set(market, sequence);
    this.scheduler = scheduler;
    this.flagChanged = flagChanged;
  }

  add(connection: Connection): void {
    this.all.add(connection);
  }

  /**
   * Forgets a closed connection. Returns the trader whose last cancel_on_disconnect connection this was
   * (its orders are to be canceled), or null.
   */
  remove(connection: Connection): string | null {
    this.all.delete(connection);
    for (const market of connection.subscriptions.keys()) this.unindex(this.byMarket, market, connection);
    connection.subscriptions.clear();
    for (const market of connection.tradeSubscriptions) this.unindex(this.byTradesMarket, market, connection);
    connection.tradeSubscriptions.clear();
    const last = this.leaveCancelOnDisconnect(connection);
    if (connection.trader !== null) this.unindex(this.byTrader, connection.trader.trader_id, connection);
    connection.trader = null;
    connection.key = null;
    this.expiring.delete(connection);
    return last;
  }

  /** Subscriptions held by open connections. */
  get subscriptionCount(): number {
    let n = 0;
    for (const set of this.byMarket.values()) n += set.size;
    return n;
  }

  get authenticatedCount(): number {
    let n = 0;
    for (const set of this.byTrader.values()) n += set.size;
    return n;
  }

  publishedSequence(market: string): number {
    return this.published.get(market) ?? 0;
  }

  /**
   * Replaces the connection's identity (null: unauthenticated) and the key it authenticated with.
   * Authenticating again is not a disconnect: the connection simply stops counting for the previous
   * trader's cancel_on_disconnect.
   */
  setTrader(connection: Connection, trader: TraderView | null, cancelOnDisconnect = false, key: KeyRecord | null = null): void {
    this.leaveCancelOnDisconnect(connection);
    if (connection.trader !== null) this.unindex(this.byTrader, connection.trader.trader_id, connection);
    connection.trader = trader;
    connection.key = trader === null ? null : key;
    if (connection.key?.expires_at != null) this.expiring.add(connection);
    else this.expiring.delete(connection);
    if (trader !== null) this.index(this.byTrader, trader.trader_id, connection);
    if (trader !== null && cancelOnDisconnect) {
      connection.cancelOnDisconnect = true;
      const first = !this.cancelOnDisconnect.has(trader.trader_id);
      this.index(this.cancelOnDisconnect, trader.trader_id, connection);
      if (first) this.flagChanged(trader.trader_id, true);
    }
  }

  /** Takes the connection out of its trader's cancel_on_disconnect set; the trader's id if it was the last. */
  private leaveCancelOnDisconnect(connection: Connection): string | null {
    if (!connection.cancelOnDisconnect || connection.trader === null) return null;
    connection.cancelOnDisconnect = false;
    const traderId = connection.trader.trader_id;
    this.unindex(this.cancelOnDisconnect, traderId, connection);
    if (this.cancelOnDisconnect.has(traderId)) return null;
    this.flagChanged(traderId, false);
    return traderId;
  }

  subscribeTrades(connection: Connection, market: string): void {
    if (connection.tradeSubscriptions.has(market)) return;
    connection.tradeSubscriptions.add(market);
    this.index(this.byTradesMarket, market, connection);
  }

  unsubscribeTrades(connection: Connection, market: string): void {
    if (connection.tradeSubscriptions.delete(market)) this.unindex(this.byTradesMarket, market, connection);
  }

  /** The public `trades` channel: each execution of a submission, encoded once for its subscribers. */
  onEvent(event: ExchangeEvent): void {
    if (event.type !== 'OrderSubmitted' || event.data.fills.length === 0) return;
    const market = event.data.order.market;
    const subscribers = this.byTradesMarket.get(market);
    if (subscribers === undefined) return;
    const fills = event.data.fills;
    for (let n = 0; n < fills.length; n++) {
      const f = fills[n] as (typeof fills)[number];
      const frame = tradeFrame(market, tradeView({ trade_id: f.fill_id, price: f.price, quantity: f.quantity, taker_side: event.data.order.side, occurred_at: event.time, seq: event.seq, n }));
      // Trades are market data like deltas: a subscriber too far behind loses the channel, not the connection.
      for (const connection of subscribers) if (!connection.queue.offerBroadcast(frame)) this.dropTrades(connection, market);
    }
  }

  /**
   * This process has fallen too far behind the exchange to deliver deltas and trades in time (the
   * fan-out child under more load than it can write): every l3 and trades subscription ends with
   * `resync_required`, as a lagging subscriber's would; a client that subscribes again is answered
   * once this process has caught up with what was published before it asked.
   */
  dropLagging(): number {
    let dropped = 0;
    for (const [market, subscribers] of [...this.byMarket]) {
      const current = this.publishedSequence(market);
      for (const connection of [...subscribers]) {
        const subscription = connection.subscriptions.get(market);
        if (subscription === undefined) continue;
        this.dropL3(connection, market, subscription.last, current);
        dropped++;
      }
    }
    for (const [market, subscribers] of [...this.byTradesMarket]) {
      for (const connection of [...subscribers]) {
        this.dropTrades(connection, market);
        this.lagDrops++;
        dropped++;
      }
    }
    return dropped;
  }

  private dropTrades(connection: Connection, market: string): void {
    this.unsubscribeTrades(connection, market);
    connection.send(tradesResyncFrame(market));
  }

  /** Subscribes (or re-subscribes) with deltas to follow strictly after `after`. */
  subscribe(connection: Connection, market: string, after: number, batch = false): void {
    const existing = connection.subscriptions.get(market);
    if (existing !== undefined) {
      existing.last = after;
      existing.batch = batch;
    } else {
      connection.subscriptions.set(market, { last: after, batch });
      this.index(this.byMarket, market, connection);
    }
  }

  unsubscribe(connection: Connection, market: string): void {
    if (connection.subscriptions.delete(market)) this.unindex(this.byMarket, market, connection);
  }

  onDelta(delta: L3Delta): void {
    this.published.set(delta.market, delta.sequence);
    const subscribers = this.byMarket.get(delta.market);
    if (subscribers === undefined) return;
    const frame = this.frameOf(delta);
    let run = this.runs.get(delta.market);
    if (run === undefined) {
      run = new DeltaRun();
      if (this.runs.size === 0) this.scheduler.atTurnEnd(this.sealRuns);
      this.runs.set(delta.market, run);
    }
    run.add(frame);
    // Deleting the current element while iterating a Set is safe; a lagging subscriber drops out here.
    for (const connection of subscribers) this.offer(connection, delta, frame);
  }

  /** Queues one delta to one subscriber (live or replayed). */
  deliver(connection: Connection, delta: L3Delta): void {
    this.offer(connection, delta, this.frameOf(delta));
  }

  onPrivate(event: PrivateEvent): void {
    const connections = this.byTrader.get(event.trader_id);
    if (connections === undefined) return;
    const frame = privateEventFrame(event);
    for (const connection of connections) connection.send(frame);
  }

  onAdminMessage(message: AdminMessageView): void {
    if (message.target_trader_id !== null) {
      const connections = this.byTrader.get(message.target_trader_id);
      if (connections === undefined) return;
      const frame = adminMessageFrame(message);
      for (const connection of connections) connection.send(frame);
      return;
    }
    if (this.all.size === 0) return;
    const frame = adminMessageFrame(message);
    for (const connection of this.all) connection.send(frame);
  }

  /**
   * Closes the sessions authenticated as the trader that `closes` picks (all of them when it was
   * disabled; those of a key rotated away or revoked), with close code 4001 and the reason. The
   * identity is dropped first, so nothing still queued from it runs as the trader, and the close is not a
   * disconnect that cancel_on_disconnect acts on.
   */
  revoke(traderId: string, reason: string, closes: (connection: Connection) => boolean = () => true): void {
    const connections = this.byTrader.get(traderId);
    if (connections === undefined) return;
    for (const connection of [...connections]) if (closes(connection)) this.close(connection, reason);
  }

  /** Closes one authenticated session as revoke does (its key expired, say). */
  close(connection: Connection, reason: string): void {
    this.setTrader(connection, null);
    // What is already queued for it (the cancels of a disable) goes out before the close frame.
    connection.queue.flush();
    connection.ws.close(REVOKED_CLOSE_CODE, reason);
  }

  onAccountResync(): void {
    for (const connection of this.all) connection.send(ACCOUNT_RESYNC_FRAME);
  }

  private offer(connection: Connection, delta: L3Delta, frame: WireFrame): void {
    const subscription = connection.subscriptions.get(delta.market);
    // Already covered by the snapshot or replay this subscription started from.
    if (subscription === undefined || delta.sequence <= subscription.last) return;
    if (connection.queue.offerBroadcast(frame, subscription.batch)) {
      subscription.last = delta.sequence;
      return;
    }
    this.dropL3(connection, delta.market, subscription.last, delta.sequence);
  }

  /** Ends a lagging l3 subscription: the client is told which sequences it missed (resync_required). */
  private dropL3(connection: Connection, market: string, last: number, current: number): void {
    this.unsubscribe(connection, market);
    this.lagDrops++;
    connection.send(l3ResyncFrame(market, last + 1, current));
  }

  private frameOf(delta: L3Delta): WireFrame {
    let frame = this.frames.get(delta);
    if (frame === undefined) {
      frame = new WireFrame(deltaFrame(delta));
      this.frames.set(delta, frame);
    }
    return frame;
  }

  private index(map: Map<string, Set<Connection>>, key: string, connection: Connection): void {
    let set = map.get(key);
    if (set === undefined) {
      set = new Set();
      map.set(key, set);
    }
    set.add(connection);
  }

  private unindex(map: Map<string, Set<Connection>>, key: string, connection: Connection): void {
    const set = map.get(key);
    if (set === undefined) return;
    set.delete(connection);
    if (set.size === 0) map.delete(key);
  }
}
