// One market's L3 book rebuilt from the feed: a snapshot, then deltas applied strictly in sequence. A
// delta that skips a sequence is a gap: the caller must resubscribe for a fresh snapshot. Pure (no DOM),
// so the rules are unit-tested outside the browser.
import type { BookOrder, Side } from './api-types.ts';
import type { DeltaMessage, SnapshotMessage } from './server-messages.ts';

export interface BookLevel {
  readonly price: number;
  readonly quantity: number;
  /** The level's resting orders in time priority. */
  readonly orders: readonly BookOrder[];
}

export interface BookTrade {
  readonly price: number;
  readonly quantity: number;
  readonly maker_order_id: string;
  readonly taker_order_id: string;
  /** Side of the maker order (the resting one); the taker's is the other. */
  readonly maker_side: Side | null;
  readonly sequence: number;
}

/** 'stale': at or before the book's sequence, ignored (a replay overlap); 'gap': one or more deltas missed. */
export type DeltaOutcome = 'applied' | 'stale' | 'gap' | 'not_ready';

export class L3Book {
  readonly market: string;
  sequence = 0;
  epoch: string | null = null;
  /** False until a snapshot (or a confirmed replay) arrived; deltas are ignored meanwhile. */
  ready = false;
  // Insertion order is time priority within a price: snapshot rows come FIFO, additions append, and an
  // update (`set` on an existing key) keeps the order's place.
  private readonly orders = new Map<string, BookOrder>();

  constructor(market: string) {
    this.market = market;
  }

  loadSnapshot(snapshot: SnapshotMessage): void {
    this.orders.clear();
    for (const o of snapshot.bids) this.orders.set(o.order_id, o);
    for (const o of snapshot.asks) this.orders.set(o.order_id, o);
    this.sequence = snapshot.sequence;
    this.epoch = snapshot.epoch ?? null;
    this.ready = true;
  }

  /** Applies a delta; trades it contains are handed to `onTrade`. */
  applyDelta(delta: DeltaMessage, onTrade: (trade: BookTrade) => void = () => {}): DeltaOutcome {
    if (!this.ready) return 'not_ready';
    if (delta.sequence <= this.sequence) return 'stale';
    if (delta.sequence !== this.sequence + 1) return 'gap';
    for (const event of delta.events) {
      switch (event.kind) {
        case 'order_added':
        case 'order_updated':
          this.orders.set(event.order.order_id, event.order);
          break;
        case 'order_removed':
          this.orders.delete(event.order_id);
          break;
        case 'trade': {
          // The maker's own update or removal came just before; its side is in that event.
          const maker = delta.events.find((e) => (e.kind === 'order_removed' && e.order_id === event.maker_order_id) || (e.kind === 'order_updated' && e.order.order_id === event.maker_order_id));
          const makerSide = maker === undefined ? null : maker.kind === 'order_removed' ? maker.side : maker.kind === 'order_updated' ? maker.order.side : null;
          onTrade({ price: event.price, quantity: event.quantity, maker_order_id: event.maker_order_id, taker_order_id: event.taker_order_id, maker_side: makerSide, sequence: delta.sequence });
          break;
        }
      }
    }
    this.sequence = delta.sequence;
    return 'applied';
  }

  /** Marks the book as waiting for a fresh snapshot (after a gap or a resync_required). */
  invalidate(): void {
    this.ready = false;
  }

  get orderCount(): number {
    return this.orders.size;
  }

  /** Price levels of one side, best first, each with its orders in time priority. */
  levels(side: Side): BookLevel[] {
    const byPrice = new Map<number, BookOrder[]>();
    for (const o of this.orders.values()) {
      if (o.side !== side) continue;
      const level = byPrice.get(o.price);
      if (level === undefined) byPrice.set(o.price, [o]);
      else level.push(o);
    }
    const prices = [...byPrice.keys()].sort((a, b) => (side === 'BUY' ? b - a : a - b));
    return prices.map((price) => {
      const orders = byPrice.get(price) ?? [];
      return { price, quantity: orders.reduce((sum, o) => sum + o.remaining, 0), orders };
    });
  }

  bestBid(): number | null {
    let best: number | null = null;
    for (const o of this.orders.values()) if (o.side === 'BUY' && (best === null || o.price > best)) best = o.price;
    return best;
  }

  bestAsk(): number | null {
    let best: number | null = null;
    for (const o of this.orders.values()) if (o.side === 'SELL' && (best === null || o.price < best)) best = o.price;
    return best;
  }
}
