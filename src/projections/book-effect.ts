// What applying one event did to the books, in the order it happened: orders added, updated (a lower
// remaining), removed, and trades. The market-data and private feeds are derived from it. It is one
// buffer, reused for every event and handed to the feeds synchronously: a change names the order's slot
// (whose record then holds the order as the change left it: an order changes at most once per event)
// and, for a trade, the fill's index in the event, so describing a command allocates nothing unless a
// feed has a listener to build a message for.
import { grown } from '../events/grown.ts';
import type { ExchangeEvent } from '../events/types.ts';
import { NONE } from './orders/order-store.ts';

export const ORDER_ADDED = 0;
export const ORDER_UPDATED = 1;
export const ORDER_REMOVED = 2;
export const TRADE = 3;

// Why an order left the book.
export const CAUSE_FILLED = 0;
export const CAUSE_CANCELED = 1;
export const CAUSE_SETTLED = 2;
export const CAUSE_RESET = 3;

export class BookEffect {
  /** The event being applied. */
  event: ExchangeEvent | null = null;
  /** Changes recorded so far. */
  size = 0;
  /** For OrderSubmitted: the submitted order's slot (resting or not), else NONE. */
  taker = NONE;
  kinds = new Uint8Array(64);
  /** The order changed; for a trade, the maker's slot. */
  slots = new Int32Array(64);
  /** For a removal: its cause (CAUSE_*); for a trade: the fill's index in the event. */
  details = new Int32Array(64);

  begin(event: ExchangeEvent): void {
    this.event = event;
    this.size = 0;
    this.taker = NONE;
  }

  push(kind: number, slot: number, detail: number): void {
    const i = this.size;
    if (i === this.kinds.length) this.grow();
    this.kinds[i] = kind;
    this.slots[i] = slot;
    this.details[i] = detail;
    this.size = i + 1;
  }

  /** Nothing to tell: no change and no submitted order. */
  get isEmpty(): boolean {
    return this.size === 0 && this.taker === NONE;
  }

  private grow(): void {
    const n = this.kinds.length * 2;
    this.kinds = grown(this.kinds, n);
    this.slots = grown(this.slots, n);
    this.details = grown(this.details, n);
  }
}

/** A feed derived from the books: told of every event's effect, synchronously, before the next event. */
export interface BookEffectListener {
  bookEffect(effect: BookEffect): void;
}
