// The window of recently finished orders: a ring of flat records, the newest `capacity` orders that left
// the live state, which the order store keeps findable (by id, and through the books' client order ids)
// until the ring lets go of them. An order finishes in its slot of the order store and is copied here as
// the next event begins, which frees its slot at once.
//
// Why a ring of its own, and no index: kept in their slots and in the store's id index, the 8,192
// finished orders of the window were most of the store and of its index (a 32,768-entry table beside
// 1,000 resting orders), so every lookup of trading probed a table out of the fast caches and every new
// order took a slot last touched thousands of orders before; bench:engine ran 9% slower with the window
// than with none (373k against 409k commands per CPU second, medians of six, 1,000 resting, 2026-12-06).
// Here finished orders are written one after the other, the index and the slots hold only the live
// orders, and the store reuses slots just freed, still in the caches. Finished orders are looked up by
// id only when a client asks for one (GET /orders/{id}, a reply built after a durable wait): a scan of
// the ring's hashes (32 KiB at 8,192), a few microseconds.
//
// A record is addressed by a reference, RECENT + its position, which the order store hands out beside
// its slots; a position is reused once the ring has come round, after its order was let go of (the
// books drop their client order id of it then).
import { SlotColumn } from '../../events/slot-column.ts';
import { StringColumn } from '../../events/string-column.ts';

/** References of the window's records start here (slots of the order store stay below). */
export const RECENT = 1 << 30;

// The layout of a record: the order store's numbers and integers, all as doubles, and when it finished.
export const R_PRICE = 0;
export const R_QUANTITY = 1;
export const R_REMAINING = 2;
export const R_FILLED = 3;
export const R_NOTIONAL = 4;
export const R_SEQ = 5;
export const R_CREATED = 6;
export const R_TRADER = 7;
export const R_MARKET = 8;
export const R_FLAGS = 9;
export const R_FINISHED = 10;
const STRIDE = 11;

export class RecentOrders {
  readonly capacity: number;
  private readonly num = new SlotColumn(STRIDE);
  /** Per position: the id, the client order id. */
  private readonly strs = new StringColumn<string | null>(null);
  /** Per position: the id's hash (id-hash.ts), side by side for the scan of a lookup. */
  private hashes = new Int32Array(64);
  /** Admission times not in the canonical form, by position (see time-code.ts, OddTimes). */
  private readonly times = new Map<number, string>();
  private head = 0;
  private filled = 0;

  constructor(capacity: number) {
    if (!(Number.isSafeInteger(capacity) && capacity > 0 && capacity < RECENT)) throw new Error(`recent orders: a capacity of ${capacity}`);
    this.capacity = capacity;
  }

  get count(): number {
    return this.filled;
  }

  /** The position of the oldest record when the ring is full (the next one takes its place), else -1. */
  get oldest(): number {
    return this.filled < this.capacity ? -1 : this.head;
  }

  /**
   * The position for the next record: the oldest one's when the ring is full (the caller has let go of
   * it). Its numbers are written through `chunk` and `offset`, its strings and hash with `setStrings`.
   */
  next(): number {
    const at = this.head;
    if (this.filled < this.capacity) {
      this.filled++;
      if (at === this.num.capacity) this.num.reserve(at + 1);
      if (at === this.hashes.length) {
        const bigger = new Int32Array(Math.min(this.capacity, this.hashes.length * 2));
        bigger.set(this.hashes);
        this.hashes = bigger;
      }
    } else this.times.delete(at);
    this.head = at + 1 === this.capacity ? 0 : at + 1;
    return at;
  }

  get(at: number, field: number): number {
    return this.num.get(at, field);
  }

  /** The chunk holding a record's numbers; they start at offset(at). */
  chunk(at: number): number[] {
    return this.num.chunk(at);
  }

  offset(at: number): number {
    return this.num.offset(at);
  }

  setStrings(at: number, id: string, hash: number, clientOrderId: string | null): void {
    this.strs.set(2 * at, id);
    this.strs.set(2 * at + 1, clientOrderId);
    this.hashes[at] = hash;
  }

  id(at: number): string {
    return this.strs.get(2 * at) as string;
  }

  clientOrderId(at: number): string | null {
    return this.strs.get(2 * at + 1);
  }

  /** Keeps the text of an admission time that has no code. */
  setTimeText(at: number, text: string): void {
    this.times.set(at, text);
  }

  timeText(at: number): string {
    return this.times.get(at) as string;
  }

  /** The position of the record with this id (hashing to `hash`), or -1. */
  find(id: string, hash: number): number {
    const hashes = this.hashes;
    for (let at = 0; at < this.filled; at++) if (hashes[at] === hash && this.id(at) === id) return at;
    return -1;
  }

  /** The positions of the records, oldest first. */
  *positions(): IterableIterator<number> {
    const start = this.filled < this.capacity ? 0 : this.head;
    for (let i = 0; i < this.filled; i++) yield (start + i) % this.capacity;
  }

  clear(): void {
    this.strs.clear();
    this.times.clear();
    this.head = 0;
    this.filled = 0;
  }
}
