// A market's recent l3 deltas, for a client that resubscribes with its last sequence. Kept flat, like
// the log: a delta is a sequence and a run of events in typed arrays (strings by reference), not an
// object graph, so a ring of thousands of deltas per market is nothing the garbage collector traces.
// A delta is built as an object again only when a resubscribing client asks for it.
import type { L3Delta, L3Event } from './l3-messages.ts';

export const L3_ADDED = 0;
export const L3_UPDATED = 1;
export const L3_REMOVED = 2;
export const L3_TRADE = 3;

const SIDES = ['BUY', 'SELL'] as const;

export class DeltaRing {
  private readonly capacity: number;
  private readonly market: string;
  // The deltas, a circle of `capacity`: sequence, and where its events start (a running count) and how many.
  private readonly sequences: Float64Array;
  private readonly starts: Float64Array;
  private readonly counts: Int32Array;
  private first = 0;
  private size = 0;
  // The events, a circle of its own that grows when one delta needs more than it holds.
  private eventCapacity: number;
  private kinds: Uint8Array;
  private sides: Uint8Array;
  private prices: Float64Array;
  private quantities: Float64Array;
  private a: (string | undefined)[];
  private b: (string | undefined)[];
  private written = 0;
  private held = 0;
  // The delta being written.
  private open = false;
  private openStart = 0;

  constructor(market: string, capacity: number) {
    this.market = market;
    this.capacity = capacity;
    this.sequences = new Float64Array(capacity);
    this.starts = new Float64Array(capacity);
    this.counts = new Int32Array(capacity);
    this.eventCapacity = Math.max(16, capacity * 4);
    this.kinds = new Uint8Array(this.eventCapacity);
    this.sides = new Uint8Array(this.eventCapacity);
    this.prices = new Float64Array(this.eventCapacity);
    this.quantities = new Float64Array(this.eventCapacity);
    this.a = new Array<string | undefined>(this.eventCapacity);
    this.b = new Array<string | undefined>(this.eventCapacity);
  }

  /** Starts the next delta; its events follow with `event`, then `end` closes it. */
  begin(): void {
    this.open = true;
    this.openStart = this.written;
  }

  /**
   * One event of the open delta: an order added or updated (a order id, b created_at, quantity its
   * remaining), removed (a order id), or a trade (a maker order id, b taker order id).
   */
  event(kind: number, side: number, price: number, quantity: number, a: string, b: string | undefined): void {
    if (this.written - this.openStart === this.eventCapacity) this.growEvents();
    // Room for it: the oldest deltas give way.
    while (this.size > 0 && this.held + 1 > this.eventCapacity) this.evict();
    const i = this.written % this.eventCapacity;
    this.kinds[i] = kind;
    this.sides[i] = side;
    this.prices[i] = price;
    this.quantities[i] = quantity;
    this.a[i] = a;
    this.b[i] = b;
    this.written++;
    this.held++;
  }

  end(sequence: number): void {
    if (!this.open) throw new Error('delta ring: end without begin');
    this.open = false;
    if (this.size === this.capacity) this.evict();
    const d = (this.first + this.size) % this.capacity;
    this.sequences[d] = sequence;
    this.starts[d] = this.openStart;
    this.counts[d] = this.written - this.openStart;
    this.size++;
  }

  /** The deltas after `sequence`, or null when the ring no longer holds all of them. */
  after(sequence: number, current: number): L3Delta[] | null {
    if (sequence === current) return [];
    if (sequence > current || sequence < 0) return null;
    if (this.size === 0 || (this.sequences[this.first] as number) > sequence + 1) return null;
    const out: L3Delta[] = [];
    for (let k = 0; k < this.size; k++) {
      const d = (this.first + k) % this.capacity;
      if ((this.sequences[d] as number) > sequence) out.push(this.delta(d));
    }
    return out;
  }

  private delta(d: number): L3Delta {
    const events: L3Event[] = [];
    const start = this.starts[d] as number;
    const count = this.counts[d] as number;
    for (let e = start; e < start + count; e++) {
      const i = e % this.eventCapacity;
      const side = SIDES[this.sides[i] as number] as 'BUY' | 'SELL';
      const price = this.prices[i] as number;
      const a = this.a[i] as string;
      switch (this.kinds[i]) {
        case L3_ADDED:
        case L3_UPDATED:
          events.push({ kind: this.kinds[i] === L3_ADDED ? 'order_added' : 'order_updated', order: { order_id: a, side, price, remaining: this.quantities[i] as number, created_at: this.b[i] as string } });
          break;
        case L3_REMOVED:
          events.push({ kind: 'order_removed', order_id: a, side, price });
          break;
        default:
          events.push({ kind: 'trade', maker_order_id: a, taker_order_id: this.b[i] as string, price, quantity: this.quantities[i] as number });
      }
    }
    return { type: 'delta', channel: 'l3', market: this.market, sequence: this.sequences[d] as number, events };
  }

  private evict(): void {
    const d = this.first;
    this.held -= this.counts[d] as number;
    this.first = (this.first + 1) % this.capacity;
    this.size--;
  }

  /** One delta outgrew the event circle: double it, keeping every event still held in place by count. */
  private growEvents(): void {
    const old = this.eventCapacity;
    const capacity = old * 2;
    const kinds = new Uint8Array(capacity);
    const sides = new Uint8Array(capacity);
    const prices = new Float64Array(capacity);
    const quantities = new Float64Array(capacity);
    // Not grown(): events move to their place in the larger circle, not to the same index.
    const a = new Array<string | undefined>(capacity);
    const b = new Array<string | undefined>(capacity);
    for (let e = this.written - this.held; e < this.written; e++) {
      const from = e % old;
      const to = e % capacity;
      kinds[to] = this.kinds[from] as number;
      sides[to] = this.sides[from] as number;
      prices[to] = this.prices[from] as number;
      quantities[to] = this.quantities[from] as number;
      a[to] = this.a[from];
      b[to] = this.b[from];
    }
    this.kinds = kinds;
    this.sides = sides;
    this.prices = prices;
    this.quantities = quantities;
    this.a = a;
    this.b = b;
    this.eventCapacity = capacity;
  }
}
