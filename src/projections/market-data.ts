// The l3 market-data feed: one delta per market per command that changed that market's book, with a
// gap-free sequence per market derived from the log (so it continues across restarts of a durable
// server), and a bounded ring of recent deltas per market so a client that resubscribes with its last
// sequence can be caught up without a snapshot.
import { Subject } from 'rxjs';
import type { Side } from '../events/types.ts';
import type { BookChange, BookEffect, BooksProjection } from './books.ts';
import type { BookOrderView, OrderView } from './views.ts';

export type L3Event =
  | { readonly kind: 'order_added'; readonly order: BookOrderView }
  | { readonly kind: 'order_updated'; readonly order: BookOrderView }
  | { readonly kind: 'order_removed'; readonly order_id: string; readonly side: Side; readonly price: number }
  | { readonly kind: 'trade'; readonly maker_order_id: string; readonly taker_order_id: string; readonly price: number; readonly quantity: number };

export interface L3Delta {
  readonly type: 'delta';
  readonly channel: 'l3';
  readonly market: string;
  readonly sequence: number;
  readonly events: readonly L3Event[];
}

export interface L3Snapshot {
  readonly type: 'snapshot';
  readonly channel: 'l3';
  readonly market: string;
  readonly sequence: number;
  readonly bids: BookOrderView[];
  readonly asks: BookOrderView[];
}

export const DEFAULT_DELTA_RING = 4096;

/** Only resting orders reach the book feed, and a resting order always has a price. */
export function bookOrderView(o: OrderView | { id: string; side: Side; price: number; remaining: number; created_at: string }): BookOrderView {
  return { order_id: o.id, side: o.side, price: o.price ?? 0, remaining: o.remaining, created_at: o.created_at };
}

class Ring {
  private readonly items: (L3Delta | undefined)[];
  private start = 0;
  private size = 0;

  constructor(capacity: number) {
    this.items = new Array<L3Delta | undefined>(capacity);
  }

  push(delta: L3Delta): void {
    const capacity = this.items.length;
    if (capacity === 0) return;
    this.items[(this.start + this.size) % capacity] = delta;
    if (this.size < capacity) this.size++;
    else this.start = (this.start + 1) % capacity;
  }

  /** The deltas after `sequence`, or null when the ring no longer holds all of them. */
  after(sequence: number, current: number): L3Delta[] | null {
    if (sequence === current) return [];
    if (sequence > current || sequence < 0) return null;
    const capacity = this.items.length;
    const oldest = this.size === 0 ? undefined : this.items[this.start % capacity];
    if (oldest === undefined || oldest.sequence > sequence + 1) return null;
    const out: L3Delta[] = [];
    for (let i = 0; i < this.size; i++) {
      const d = this.items[(this.start + i) % capacity] as L3Delta;
      if (d.sequence > sequence) out.push(d);
    }
    return out;
  }
}

export class MarketDataFeed {
  readonly deltas$ = new Subject<L3Delta>();
  private readonly sequences = new Map<string, number>();
  private readonly rings = new Map<string, Ring>();
  private readonly books: BooksProjection;
  private readonly ringCapacity: number;

  constructor(books: BooksProjection, ringCapacity = DEFAULT_DELTA_RING, fault: (err: unknown) => void = rethrow) {
    this.books = books;
    this.ringCapacity = ringCapacity;
    books.effects$.subscribe((effect) => {
      try {
        this.onEffect(effect);
      } catch (err) {
        fault(err);
      }
    });
  }

  sequence(market: string): number {
    return this.sequences.get(market) ?? 0;
  }

  allSequences(): IterableIterator<[string, number]> {
    return this.sequences.entries();
  }

  restoreSequences(sequences: Iterable<[string, number]>): void {
    for (const [market, seq] of sequences) this.sequences.set(market, seq);
  }

  /** Deltas of `market` after `sequence` if the ring still holds every one of them, else null. */
  deltasAfter(market: string, sequence: number): L3Delta[] | null {
    const current = this.sequence(market);
    const ring = this.rings.get(market);
    if (ring === undefined) return sequence === current ? [] : null;
    return ring.after(sequence, current);
  }

  snapshot(market: string): L3Snapshot {
    const book = this.books.book(market);
    const bids: BookOrderView[] = [];
    const asks: BookOrderView[] = [];
    if (book !== undefined) {
      for (const o of book.bids.orders()) bids.push(bookOrderView(o));
      for (const o of book.asks.orders()) asks.push(bookOrderView(o));
    }
    return { type: 'snapshot', channel: 'l3', market, sequence: this.sequence(market), bids, asks };
  }

  private onEffect(effect: BookEffect): void {
    const changes = effect.changes;
    if (changes.length === 0) return;
    // Almost every command touches one market; only a reset spans several. Group by market then,
    // keeping each market's changes in the order they happened.
    const first = marketOf(changes[0] as BookChange);
    let single = true;
    for (let i = 1; i < changes.length && single; i++) single = marketOf(changes[i] as BookChange) === first;
    if (single) {
      this.publish(first, changes);
      return;
    }
    const perMarket = new Map<string, BookChange[]>();
    for (const change of changes) {
      const market = marketOf(change);
      let events = perMarket.get(market);
      if (events === undefined) {
        events = [];
        perMarket.set(market, events);
      }
      events.push(change);
    }
    for (const [market, events] of perMarket) this.publish(market, events);
  }

  private publish(market: string, changes: readonly BookChange[]): void {
    const sequence = this.sequence(market) + 1;
    this.sequences.set(market, sequence);
    // The sequence is state; the delta itself is only built when someone keeps or reads it.
    if (this.ringCapacity === 0 && !this.deltas$.observed) return;
    const delta: L3Delta = { type: 'delta', channel: 'l3', market, sequence, events: changes.map(l3Event) };
    let ring = this.rings.get(market);
    if (ring === undefined) {
      ring = new Ring(this.ringCapacity);
      this.rings.set(market, ring);
    }
    ring.push(delta);
    this.deltas$.next(delta);
  }

}

function marketOf(change: BookChange): string {
  return change.kind === 'trade' ? change.fill.market : change.order.market;
}

function l3Event(change: BookChange): L3Event {
  switch (change.kind) {
    case 'order_added':
    case 'order_updated':
      return { kind: change.kind, order: bookOrderView(change.order) };
    case 'order_removed':
      return { kind: 'order_removed', order_id: change.order.id, side: change.order.side, price: change.order.price ?? 0 };
    case 'trade':
      return { kind: 'trade', maker_order_id: change.fill.maker_order_id, taker_order_id: change.fill.taker_order_id, price: change.fill.price, quantity: change.fill.quantity };
  }
}

function rethrow(err: unknown): never {
  throw err;
}
