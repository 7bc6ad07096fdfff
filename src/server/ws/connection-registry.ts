// Who gets what: every open connection, the connections subscribed to each market and those
// authenticated as each trader, and the routing of the service's publications to them. Each frame is
// encoded once and the same Buffer is queued on every connection that receives it.
import type { L3Delta } from '../../projections/market-data.ts';
import type { PrivateEvent } from '../../projections/private-feed.ts';
import type { AdminMessageView, TraderView } from '../../projections/views.ts';
import type { Connection } from './connection.ts';
import { ACCOUNT_RESYNC_FRAME, adminMessageFrame, deltaFrame, l3ResyncFrame, privateEventFrame } from './frames.ts';

export class ConnectionRegistry {
  readonly all = new Set<Connection>();
  private readonly byMarket = new Map<string, Set<Connection>>();
  private readonly byTrader = new Map<string, Set<Connection>>();
  // A delta's frame, kept while the feed's ring keeps the delta, so a replay does not encode it again.
  private readonly frames = new WeakMap<L3Delta, Buffer>();
  /** The last sequence published per market: what heartbeats report. */
  private readonly published = new Map<string, number>();

  constructor(initialSequences: Iterable<[string, number]>) {
    for (const [market, sequence] of initialSequences) this.published.set(market, sequence);
  }

  add(connection: Connection): void {
    this.all.add(connection);
  }

  remove(connection: Connection): void {
    this.all.delete(connection);
    for (const market of connection.subscriptions.keys()) this.unindex(this.byMarket, market, connection);
    connection.subscriptions.clear();
    if (connection.trader !== null) this.unindex(this.byTrader, connection.trader.trader_id, connection);
    connection.trader = null;
  }

  publishedSequence(market: string): number {
    return this.published.get(market) ?? 0;
  }

  /** Replaces the connection's identity (null: unauthenticated). */
  setTrader(connection: Connection, trader: TraderView | null): void {
    if (connection.trader !== null) this.unindex(this.byTrader, connection.trader.trader_id, connection);
    connection.trader = trader;
    if (trader !== null) this.index(this.byTrader, trader.trader_id, connection);
  }

  /** Subscribes (or re-subscribes) with deltas to follow strictly after `after`. */
  subscribe(connection: Connection, market: string, after: number): void {
    const existing = connection.subscriptions.get(market);
    if (existing !== undefined) existing.last = after;
    else {
      connection.subscriptions.set(market, { last: after });
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

  onAccountResync(): void {
    for (const connection of this.all) connection.send(ACCOUNT_RESYNC_FRAME);
  }

  private offer(connection: Connection, delta: L3Delta, frame: Buffer): void {
    const subscription = connection.subscriptions.get(delta.market);
    // Already covered by the snapshot or replay this subscription started from.
    if (subscription === undefined || delta.sequence <= subscription.last) return;
    if (connection.queue.offerBroadcast(frame)) {
      subscription.last = delta.sequence;
      return;
    }
    this.unsubscribe(connection, delta.market);
    connection.send(l3ResyncFrame(delta.market, subscription.last + 1, delta.sequence));
  }

  private frameOf(delta: L3Delta): Buffer {
    let frame = this.frames.get(delta);
    if (frame === undefined) {
      frame = deltaFrame(delta);
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
