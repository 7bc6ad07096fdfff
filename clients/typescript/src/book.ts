// A local L3 book of one market, kept from the l3 channel: a snapshot, then deltas applied in sequence.
// Orders are held by id, and per price level in a Map whose insertion order is time priority (an
// update keeps its place, as the exchange keeps an amended order's priority), so a delta costs a few
// Map operations and the sorted view is only built when asked for.
import type { BookOrder, L3Delta, L3Event, Snapshot } from './messages.ts';

export type Side = 'BUY' | 'SELL';

interface Resting {
  readonly order_id: string;
  readonly side: Side;
  readonly price: number;
  remaining: number;
  readonly created_at: string;
}

type Level = Map<string, Resting>;

/** Thrown when a delta does not fit the book (an unknown order): the book must be resubscribed. */
export class BookDesyncError extends Error {
  override readonly name = 'BookDesyncError';
}

export class L3Book {
  readonly market: string;
  /** The sequence of the last snapshot or delta applied; -1 before the first snapshot. */
  sequence = -1;
  /** The server's feed epoch the sequence belongs to. */
  epoch: string | null = null;
  private readonly orders = new Map<string, Resting>();
  private readonly bidLevels = new Map<number, Level>();
  private readonly askLevels = new Map<number, Level>();

  constructor(market: string) {
    this.market = market;
  }

  get synced(): boolean {
    return this.sequence >= 0;
  }

  get size(): number {
    return this.orders.size;
  }

  reset(snapshot: Pick<Snapshot, 'sequence' | 'bids' | 'asks'> & { epoch?: string }): void {
    this.orders.clear();
    this.bidLevels.clear();
    this.askLevels.clear();
    for (const o of snapshot.bids) this.add(o);
    for (const o of snapshot.asks) this.add(o);
    this.sequence = snapshot.sequence;
    if (snapshot.epoch !== undefined) this.epoch = snapshot.epoch;
  }

  /** Forgets everything (the next subscribe asks for a snapshot). */
  clear(): void {
    this.reset({ sequence: -1, bids: [], asks: [] });
    this.epoch = null;
  }

  /**
   * Applies one delta. Returns 'applied', 'duplicate' (already applied: ignored) or 'gap' (a delta is
   * missing: nothing applied; resubscribe). Throws BookDesyncError when the delta names an unknown order.
   */
  apply(delta: Pick<L3Delta, 'sequence' | 'events'>): 'applied' | 'duplicate' | 'gap' {
    if (delta.sequence <= this.sequence) return 'duplicate';
    if (delta.sequence !== this.sequence + 1 || this.sequence < 0) return 'gap';
    const events = delta.events;
    for (let i = 0; i < events.length; i++) this.applyEvent(events[i] as L3Event);
    this.sequence = delta.sequence;
    return 'applied';
  }

  private applyEvent(e: L3Event): void {
    switch (e.kind) {
      case 'order_added':
        this.add(e.order);
        return;
      case 'order_updated': {
        const o = this.orders.get(e.order.order_id);
        if (o === undefined) throw new BookDesyncError(`${this.market}: update of unknown order ${e.order.order_id}`);
        o.remaining = e.order.remaining;
        return;
      }
      case 'order_removed': {
        const o = this.orders.get(e.order_id);
        if (o === undefined) throw new BookDesyncError(`${this.market}: removal of unknown order ${e.order_id}`);
        this.orders.delete(e.order_id);
        const levels = o.side === 'BUY' ? this.bidLevels : this.askLevels;
        const level = levels.get(o.price) as Level;
        level.delete(e.order_id);
        if (level.size === 0) levels.delete(o.price);
        return;
      }
      case 'trade':
        return; // the maker's change follows as order_updated or order_removed
    }
  }

  // The order object of the frame is kept as is (frames are parsed by the client, so it owns them) and
  // its `remaining` updated in place: no copy per add. Views (bids, asks, order) hand out copies.
  private add(o: BookOrder): void {
    const resting = o as Resting;
    this.orders.set(o.order_id, resting);
    const levels = o.side === 'BUY' ? this.bidLevels : this.askLevels;
    let level = levels.get(o.price);
    if (level === undefined) {
      level = new Map();
      levels.set(o.price, level);
    }
    level.set(o.order_id, resting);
  }

  order(orderId: string): BookOrder | undefined {
    const o = this.orders.get(orderId);
    return o === undefined ? undefined : { ...o };
  }

  /** Best price first, then time priority: the order of the exchange's snapshot. */
  bids(): BookOrder[] {
    return this.sideView(this.bidLevels, (a, b) => b - a);
  }

  asks(): BookOrder[] {
    return this.sideView(this.askLevels, (a, b) => a - b);
  }

  bestBid(): number | null {
    let best: number | null = null;
    for (const p of this.bidLevels.keys()) if (best === null || p > best) best = p;
    return best;
  }

  bestAsk(): number | null {
    let best: number | null = null;
    for (const p of this.askLevels.keys()) if (best === null || p < best) best = p;
    return best;
  }

  /** Aggregated levels (price, total quantity, order count), best first. */
  levels(side: Side, depth = Infinity): { price: number; quantity: number; orders: number }[] {
    const levels = side === 'BUY' ? this.bidLevels : this.askLevels;
    const prices = [...levels.keys()].sort(side === 'BUY' ? (a, b) => b - a : (a, b) => a - b).slice(0, depth);
    return prices.map((price) => {
      let quantity = 0;
      const level = levels.get(price) as Level;
      for (const o of level.values()) quantity += o.remaining;
      return { price, quantity, orders: level.size };
    });
  }

  private sideView(levels: Map<number, Level>, order: (a: number, b: number) => number): BookOrder[] {
    const out: BookOrder[] = [];
    for (const price of [...levels.keys()].sort(order)) for (const o of (levels.get(price) as Level).values()) out.push({ ...o });
    return out;
  }
}
