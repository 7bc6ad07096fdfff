// The l3 market-data feed: one delta per market per command that changed that market's book, with a
// gap-free sequence per market derived from the log (so it continues across restarts of a durable
// server), and a bounded ring of recent deltas per market so a client that resubscribes with its last
// sequence can be caught up without a snapshot. The sequence is state and always advances; a delta is
// built as an object only for a listener (the ring keeps it flat, delta-ring.ts).
import { EventSubject } from '../events/event-subject.ts';
import type { Side } from '../events/types.ts';
import { ORDER_ADDED, ORDER_REMOVED, ORDER_UPDATED, type BookEffect, type BookEffectListener } from './book-effect.ts';
import type { BooksProjection } from './books.ts';
import { DeltaRing, L3_ADDED, L3_REMOVED, L3_TRADE, L3_UPDATED } from './delta-ring.ts';
import type { L3Delta, L3Event, L3Snapshot } from './l3-messages.ts';
import type { OrderStore } from './orders/order-store.ts';
import type { BookOrderView } from './views.ts';

// The messages' types live in l3-messages.ts; the feed's readers keep importing them from here.
export type { L3Delta, L3Event, L3Snapshot };

export const DEFAULT_DELTA_RING = 4096;

const SIDES: readonly Side[] = ['BUY', 'SELL'];

/** A resting order as the book feed shows it (a resting order always has a price). */
function slotOrderView(orders: OrderStore, slot: number): BookOrderView {
  return { order_id: orders.id(slot), side: orders.side(slot), price: orders.price(slot), remaining: orders.remaining(slot), created_at: orders.createdAt(slot) };
}

export class MarketDataFeed implements BookEffectListener {
  readonly deltas$ = new EventSubject<L3Delta>();
  /** Per market (the books' interned index): the last delta sequence, and the ring of recent deltas. */
  private readonly sequences: number[] = [];
  private readonly rings: (DeltaRing | undefined)[] = [];
  private readonly books: BooksProjection;
  private readonly ringCapacity: number;
  private readonly fault: (err: unknown) => void;
  /** The market index of each change of the effect being published (reused). */
  private changeMarkets = new Int32Array(64);

  constructor(books: BooksProjection, ringCapacity = DEFAULT_DELTA_RING, fault: (err: unknown) => void = rethrow) {
    this.books = books;
    this.ringCapacity = ringCapacity;
    this.fault = fault;
    books.listen(this);
  }

  sequence(market: string): number {
    const m = this.books.marketNames.indexOf(market);
    return m < 0 ? 0 : (this.sequences[m] ?? 0);
  }

  /** Every market that ever had a delta, with its last sequence. */
  *allSequences(): IterableIterator<[string, number]> {
    for (let m = 0; m < this.sequences.length; m++) {
      const seq = this.sequences[m];
      if (seq !== undefined && seq > 0) yield [this.books.marketNames.nameOf(m), seq];
    }
  }

  restoreSequences(sequences: Iterable<[string, number]>): void {
    for (const [market, seq] of sequences) this.sequences[this.books.marketNames.intern(market)] = seq;
  }

  /** Deltas of `market` after `sequence` if the ring still holds every one of them, else null. */
  deltasAfter(market: string, sequence: number): L3Delta[] | null {
    const current = this.sequence(market);
    const m = this.books.marketNames.indexOf(market);
    const ring = m < 0 ? undefined : this.rings[m];
    if (ring === undefined) return sequence === current ? [] : null;
    return ring.after(sequence, current);
  }

  snapshot(market: string): L3Snapshot {
    const book = this.books.book(market);
    const bids: BookOrderView[] = [];
    const asks: BookOrderView[] = [];
    if (book !== undefined) {
      const orders = this.books.orders;
      for (const slot of book.bids.orderSlots()) bids.push(slotOrderView(orders, slot));
      for (const slot of book.asks.orderSlots()) asks.push(slotOrderView(orders, slot));
    }
    return { type: 'snapshot', channel: 'l3', market, sequence: this.sequence(market), bids, asks };
  }

  bookEffect(effect: BookEffect): void {
    try {
      this.onEffect(effect);
    } catch (err) {
      this.fault(err);
    }
  }

  private onEffect(effect: BookEffect): void {
    const n = effect.size;
    if (n === 0) return;
    const orders = this.books.orders;
    if (this.changeMarkets.length < n) this.changeMarkets = new Int32Array(n * 2);
    const markets = this.changeMarkets;
    // Almost every command touches one market; only a reset spans several. Each market's changes are
    // published in the order they happened, markets in the order first touched.
    let single = true;
    for (let i = 0; i < n; i++) {
      markets[i] = orders.market(effect.slots[i] as number);
      if (markets[i] !== markets[0]) single = false;
    }
    if (single) {
      this.publish(effect, markets[0] as number, 0);
      return;
    }
    const done = new Set<number>();
    for (let i = 0; i < n; i++) {
      const m = markets[i] as number;
      if (done.has(m)) continue;
      done.add(m);
      this.publish(effect, m, i);
    }
  }

  /** One delta: the changes of market `m`, from the first at index `from`. */
  private publish(effect: BookEffect, m: number, from: number): void {
    const sequence = (this.sequences[m] ?? 0) + 1;
    this.sequences[m] = sequence;
    const listening = this.deltas$.observed;
    if (this.ringCapacity === 0 && !listening) return;
    const market = this.books.marketNames.nameOf(m);
    let ring = this.rings[m];
    if (ring === undefined && this.ringCapacity > 0) {
      ring = new DeltaRing(market, this.ringCapacity);
      this.rings[m] = ring;
    }
    const orders = this.books.orders;
    const event = effect.event;
    const fills = event !== null && event.type === 'OrderSubmitted' ? event.data.fills : null;
    const takerId = event !== null && event.type === 'OrderSubmitted' ? event.data.order.id : '';
    const markets = this.changeMarkets;
    let count = 0;
    for (let i = from; i < effect.size; i++) if (markets[i] === m) count++;
    // Sized once: a delta's events are known before it is built.
    const events: L3Event[] | null = listening ? new Array<L3Event>(count) : null;
    let e = 0;
    ring?.begin();
    for (let i = from; i < effect.size; i++) {
      if (markets[i] !== m) continue;
      const slot = effect.slots[i] as number;
      const kind = effect.kinds[i] as number;
      if (kind === ORDER_ADDED || kind === ORDER_UPDATED) {
        ring?.event(kind === ORDER_ADDED ? L3_ADDED : L3_UPDATED, orders.sideBit(slot), orders.price(slot), orders.remaining(slot), orders.id(slot), orders.createdAt(slot));
        if (events !== null) events[e++] = { kind: kind === ORDER_ADDED ? 'order_added' : 'order_updated', order: slotOrderView(orders, slot) };
      } else if (kind === ORDER_REMOVED) {
        const side = orders.sideBit(slot);
        ring?.event(L3_REMOVED, side, orders.price(slot), 0, orders.id(slot), undefined);
        if (events !== null) events[e++] = { kind: 'order_removed', order_id: orders.id(slot), side: SIDES[side] as Side, price: orders.price(slot) };
      } else {
        const fill = fills?.[effect.details[i] as number];
        if (fill === undefined) throw new Error(`market data: a trade without its fill at seq ${event?.seq}`);
        ring?.event(L3_TRADE, 0, fill.price, fill.quantity, fill.maker_order_id, takerId);
        if (events !== null) events[e++] = { kind: 'trade', maker_order_id: fill.maker_order_id, taker_order_id: takerId, price: fill.price, quantity: fill.quantity };
      }
    }
    ring?.end(sequence);
    if (events !== null) this.deltas$.next({ type: 'delta', channel: 'l3', market, sequence, events });
  }
}

function rethrow(err: unknown): never {
  throw err;
}
