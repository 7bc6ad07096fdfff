// Every open order and a bounded window of the most recently finished ones, kept flat: one slot per
// order, its numbers side by side in two columns of doubles (seven numbers, eight integers: an order's
// fields share a cache line or two instead of one line per field) and its strings (id, client order id)
// in arrays of references, with the links of the book's price-level queue and of its trader's
// open-order list in the same slot. A resting order is a slot linked into a level; a finished one is a
// slot linked nowhere, kept while it is among the `recent` newest finished orders (replies, lookups by
// id and client order id, duplicate answers find it here), then its slot is freed for a new order. What
// finished before that is history, which the exchange keeps outside its live state (the records the
// books projection emits as orders finish; docs/architecture.md, "Live state and history"). So the
// store's size follows the open orders, not the number of orders ever submitted. No object per order:
// at a million resting orders the garbage collector has nothing to trace but a few arrays, and a
// submission allocates nothing that outlives the command: its admission time is kept as a number
// (time-code.ts), not as the command's time string, which would live as long as the order. The columns
// are arrays of doubles on the V8 heap, not typed arrays, so that a growing store does not make V8
// collect the whole heap for "external memory pressure" every 64 MiB (slot-column.ts).
//
// A slot names one order from its submission until the window lets go of it; a freed slot is reused
// only from the next event on (evictions run as an event begins), so within one event, and for the
// replies built right after it, every slot the event touched still holds its order. A window of
// Infinity keeps every finished order (the in-memory backend, whose history is in the process anyway:
// flat here, a third of what the history's records of them would take).
import type { OrderStatus, OrderType, SelfTradePrevention, Side, TimeInForce } from '../../events/types.ts';
import { SlotColumn } from '../../events/slot-column.ts';
import { StringColumn } from '../../events/string-column.ts';
import { OddTimes, timeText } from '../../events/time-code.ts';
import { idHash } from '../../events/id-hash.ts';
import { IdIndex } from './id-index.ts';
import { RECENT, R_CREATED, R_FILLED, R_FINISHED, R_FLAGS, R_MARKET, R_NOTIONAL, R_PRICE, R_QUANTITY, R_REMAINING, R_SEQ, R_TRADER, RecentOrders } from './recent-orders.ts';

import type { Interner } from '../../events/interner.ts';
import type { OrderView } from '../views.ts';

export const NONE = -1;

/** The terms an order was submitted with, beyond side, price and quantity. */
export interface OrderTerms {
  readonly type: OrderType;
  readonly time_in_force: TimeInForce;
  readonly self_trade_prevention: SelfTradePrevention;
  readonly client_order_id: string | null;
}

export const PLAIN_LIMIT: OrderTerms = Object.freeze({ type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null });

/** An order as it stands: a copy read out of the store (changing it changes nothing there). */
export interface OrderRecord {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  /** The limit price; 0 for a market order (which never rests; its views show null). */
  readonly price: number;
  readonly quantity: number;
  /** While open: what rests. Once canceled or expired: what was canceled. Filled: 0. */
  readonly remaining: number;
  readonly created_at: string;
  readonly terms: OrderTerms;
  /** The seq of the event that submitted it. */
  readonly seq: number;
  readonly status: OrderStatus;
  /** Quantity filled so far, and the sum of price * quantity over those fills. */
  readonly filled: number;
  readonly notional: number;
}

// flags: bit 0 side (0 BUY, 1 SELL); bit 1 type (0 LIMIT, 1 MARKET); bits 2-3 time in force; bits 4-5
// self-trade prevention; bits 6-7 status.
export const SELL = 1;
const SIDES: readonly Side[] = ['BUY', 'SELL'];
const TYPES: readonly OrderType[] = ['LIMIT', 'MARKET'];
const TIFS: readonly TimeInForce[] = ['GTC', 'IOC', 'FOK', 'POST_ONLY'];
const STPS: readonly SelfTradePrevention[] = ['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'];
const STATUSES: readonly OrderStatus[] = ['open', 'filled', 'canceled', 'expired'];
const STATUS_SHIFT = 6;

// The layout of a slot: NUMS doubles (one cache line), then INTS integers (another).
const NUMS = 8;
const PRICE = 0;
const QUANTITY = 1;
const REMAINING = 2;
const FILLED = 3;
const NOTIONAL = 4;
const SEQ = 5;
/** The admission time's code (time-code.ts); NaN when the text is not in the canonical form (its text is then in `times`). */
const CREATED = 6;
/** idHash of the order's id, computed once, as it rests (NaN until then): the index removes it by this, the window finds it. */
const HASH = 7;
const INTS = 8;
const TRADER = 0;
const MARKET = 1;
const FLAGS = 2;
const PREV = 3;
const NEXT = 4;
const LEVEL = 5;
const TPREV = 6;
const TNEXT = 7;
const STRS = 2;
const ID = 0;
const CLIENT_ID = 1;
const STATUS_MASK = 3 << STATUS_SHIFT;
/** In FLAGS: the slot holds no order (freed, waiting for the next one). */
const FREE = 1 << 8;

/** Orders finished by one event that a lookup scans; past this many it builds a map of them. */
const RETIRING_SCAN = 16;

/** Finished orders kept in the store by default (ExchangeStateOptions.recentOrders). */
export const RECENT_ORDERS = 8192;

export function sideBit(side: Side): number {
  return side === 'BUY' ? 0 : SELL;
}

export function termsBits(type: OrderType, tif: TimeInForce, stp: SelfTradePrevention): number {
  return (type === 'LIMIT' ? 0 : 2) | ((tif === 'GTC' ? 0 : tif === 'IOC' ? 1 : tif === 'FOK' ? 2 : 3) << 2) | ((stp === 'NONE' ? 0 : stp === 'CANCEL_TAKER' ? 1 : stp === 'CANCEL_MAKER' ? 2 : 3) << 4);
}

export function statusBits(status: OrderStatus): number {
  return (status === 'open' ? 0 : status === 'filled' ? 1 : status === 'canceled' ? 2 : 3) << STATUS_SHIFT;
}

export function statusOfFlags(flags: number): OrderStatus {
  return STATUSES[(flags & STATUS_MASK) >> STATUS_SHIFT] as OrderStatus;
}

export class OrderStore {
  /** Slots in use; the next order gets slot `size`. */
  size = 0;
  /** Per slot, NUMS doubles: price, quantity, remaining, filled, notional, seq, admission time, id hash. */
  private readonly num = new SlotColumn(NUMS);
  /** Per slot, INTS integers: trader, market, flags, and the links (prev, next, level, tprev, tnext). */
  private readonly int = new SlotColumn(INTS);
  /** Per slot, STRS references side by side: the id, the client order id. */
  private readonly strs = new StringColumn<string | null>(null);
  /** Admission times not in the canonical form (a log from elsewhere), as given, by slot. */
  private readonly times = new OddTimes();
  // The last admission time written out: an order's views, deltas and replies within one command read
  // it several times, and the newest order's is the very string its command came with.
  private lastCreatedCode = Number.NaN;
  private lastCreatedText = '';
  /**
   * The resting orders by id (id-index.ts): the lookups of trading (cancel, amend, a maker named by a
   * fill). An order enters as it rests and leaves as it leaves the book; the hash of its id is computed
   * once, as it rests, and kept in its slot for the removal. (Finished orders in an index of their own
   * cost each resting order that was later canceled or filled two more index operations and two more
   * hashings of its id: 5-10% of bench:engine's time, 2026-12-06.) The orders the event being applied
   * finished are found in `retiring` (a few), older ones in the window (recent-orders.ts) or, keeping
   * every order, through `finishedIds`.
   */
  private readonly index = new IdIndex(this);
  /** Keeping every order: how many are finished, and a map of them by id, built at the first lookup that needs it. */
  private finishedTotal = 0;
  private finishedIds: Map<string, number> | null = null;
  // The last id looked up in the index, its hash and its resting slot (NONE: none): decide and then apply
  // look the same id up. The slot is forgotten when its order leaves the book.
  private lastId = '';
  private lastHash = 0;
  private lastSlot = NONE;
  /** The window of recently finished orders (recent-orders.ts); null when it holds none or the store keeps every order. */
  private readonly window: RecentOrders | null;
  /** Whether finished orders go to the window (see windowed). */
  private windowOn = true;
  /** The slots the last event finished, each beside its seq: they go to the window as the next event begins. */
  private retiring: number[] = [];
  /** When they are many, the same slots by id (built at the first lookup). */
  private retiringIds: Map<string, number> | null = null;
  private released = 0;
  /** How many finished orders stay (RECENT_ORDERS by default; Infinity: all); more are let go as the next event begins. */
  readonly recent: number;
  /** Freed slots, reused before the store grows (the last freed first: it is the one still in the caches). */
  private free: number[] = [];
  /**
   * Told of every finished order with a client order id that the store lets go of, by its reference (a
   * slot, or a window record's), trader and client order id (the books' client order id index).
   */
  onRelease: ((ref: number, trader: number, clientOrderId: string) => void) | null = null;
  /** Told of every finished order with a client order id that moves from its slot to the window. */
  onMove: ((from: number, to: number, trader: number, clientOrderId: string) => void) | null = null;
  /** Who trades: the names behind `trader` and `market`. */
  readonly traderNames: Interner;
  readonly marketNames: Interner;

  constructor(traderNames: Interner, marketNames: Interner, recent = RECENT_ORDERS) {
    this.traderNames = traderNames;
    this.marketNames = marketNames;
    if (!((Number.isSafeInteger(recent) && recent >= 0) || recent === Number.POSITIVE_INFINITY)) throw new Error(`order store: recent must be a whole number >= 0 or Infinity, not ${recent}`);
    this.recent = recent;
    this.window = recent > 0 && recent !== Number.POSITIVE_INFINITY ? new RecentOrders(recent) : null;
  }

  /** The slot of the resting order with this id, or NONE. */
  restingSlot(id: string): number {
    // Apply names the very string decide looked up: the same object compares equal without reading it.
    if (id === this.lastId && this.lastSlot !== NONE) return this.lastSlot;
    const hash = id === this.lastId ? this.lastHash : idHash(id);
    this.lastId = id;
    this.lastHash = hash;
    this.lastSlot = this.index.get(id, hash);
    return this.lastSlot;
  }

  /**
   * The order with this id, resting or among the recently finished ones: its slot, or the reference of
   * its record in the window (RECENT and above), or NONE. record(), view(), status() and isOpen() take
   * either.
   */
  slotOf(id: string): number {
    const slot = this.restingSlot(id);
    if (slot !== NONE) return slot;
    // Finished orders are not in the index (a cancel of an order that traded away, which trading sees
    // all the time, never gets this far: it asks restingSlot). First the few the last event finished
    // (the replies to it look them up), then the older ones.
    const retiring = this.retiring;
    if (retiring.length <= 2 * RETIRING_SCAN) {
      for (let i = 0; i < retiring.length; i += 2) if (this.id(retiring[i] as number) === id) return retiring[i] as number;
    } else {
      // A cancel-all's replies look up every order it canceled: by a map, not a scan each.
      if (this.retiringIds === null) {
        this.retiringIds = new Map();
        for (let i = 0; i < retiring.length; i += 2) this.retiringIds.set(this.id(retiring[i] as number), retiring[i] as number);
      }
      const found = this.retiringIds.get(id);
      if (found !== undefined) return found;
    }
    if (this.window !== null) {
      // restingSlot left the id's hash in lastHash.
      const at = this.window.find(id, this.lastHash);
      return at < 0 ? NONE : RECENT + at;
    }
    return this.finishedTotal > 0 ? this.finishedSlot(id) : NONE;
  }

  /** Keeping every order: the slot of a finished one by id, or NONE. */
  private finishedSlot(id: string): number {
    if (this.finishedIds === null) {
      this.finishedIds = new Map();
      for (let slot = 0; slot < this.size; slot++) if ((this.int.get(slot, FLAGS) & FREE) === 0 && !this.isOpen(slot)) this.finishedIds.set(this.id(slot), slot);
    }
    return this.finishedIds.get(id) ?? NONE;
  }

  /** Orders in the store: resting, and finished ones not let go yet. */
  get count(): number {
    return this.index.size + this.retiring.length / 2 + this.finishedTotal + (this.window?.count ?? 0);
  }

  /** Finished orders in the store. */
  get finishedCount(): number {
    return this.count - this.index.size;
  }

  /**
   * The seq that finished the newest order the store has let go of (0: none since the last reset): every
   * order finished after it is still here. A lookup of the history as of a seq at least this one, plus
   * the store, has seen every finished order.
   */
  get releasedSeq(): number {
    return this.released;
  }

  /**
   * Whether the orders finished from now on go to the window (true, the default) or are let go of at
   * once. The window holds what the history may not have yet; events folded from a log that is already
   * durable (recovery from PostgreSQL, whose history tables commit with their events) finish no order
   * the history lacks, so recovery folds without it and turns it on for the events the exchange decides.
   */
  windowed(on: boolean): void {
    this.windowOn = on;
  }

  /** The references of the window's records, oldest first. */
  *recentRefs(): IterableIterator<number> {
    if (this.window === null) return;
    for (const at of this.window.positions()) yield RECENT + at;
  }

  /** Whether the slot holds an order (slots below `size` may be free). */
  inUse(slot: number): boolean {
    return slot >= 0 && slot < this.size && (this.int.get(slot, FLAGS) & FREE) === 0;
  }

  /**
   * The order left the book for good (or never rested): it joins the window of recently finished
   * orders as the next event begins (its replies are built from its slot first), or, keeping every
   * order, stays where it is.
   */
  finish(slot: number, seq: number): void {
    if (this.recent === Number.POSITIVE_INFINITY) {
      this.finishedTotal++;
      this.finishedIds?.set(this.id(slot), slot);
      return;
    }
    this.retiring.push(slot, seq);
  }

  /**
   * Moves the orders the last event finished into the window, letting go of the oldest ones there past
   * its size, and frees their slots. Run as an event begins: an event that finishes more orders than the
   * window holds (a cancel-all) still has every one of them in the store until its replies are built.
   */
  release(): void {
    const retiring = this.retiring;
    if (retiring.length === 0) return;
    for (let i = 0; i < retiring.length; i += 2) this.retire(retiring[i] as number, retiring[i + 1] as number);
    retiring.length = 0;
    this.retiringIds = null;
  }

  private retire(slot: number, seq: number): void {
    const window = this.windowOn ? this.window : null;
    const cid = this.clientOrderId(slot);
    const num = this.num.chunk(slot);
    const n = this.num.offset(slot);
    const int = this.int.chunk(slot);
    const i = this.int.offset(slot);
    const trader = int[i + TRADER] as number;
    if (window === null) {
      this.released = seq;
      if (cid !== null) this.onRelease?.(slot, trader, cid);
    } else {
      const oldest = window.oldest;
      if (oldest >= 0) {
        this.released = window.get(oldest, R_FINISHED);
        const oldCid = window.clientOrderId(oldest);
        if (oldCid !== null) this.onRelease?.(RECENT + oldest, window.get(oldest, R_TRADER), oldCid);
      }
      const at = window.next();
      const to = window.chunk(at);
      const t = window.offset(at);
      to[t + R_PRICE] = num[n + PRICE] as number;
      to[t + R_QUANTITY] = num[n + QUANTITY] as number;
      to[t + R_REMAINING] = num[n + REMAINING] as number;
      to[t + R_FILLED] = num[n + FILLED] as number;
      to[t + R_NOTIONAL] = num[n + NOTIONAL] as number;
      to[t + R_SEQ] = num[n + SEQ] as number;
      const created = num[n + CREATED] as number;
      to[t + R_CREATED] = created;
      to[t + R_TRADER] = trader;
      to[t + R_MARKET] = int[i + MARKET] as number;
      to[t + R_FLAGS] = int[i + FLAGS] as number;
      to[t + R_FINISHED] = seq;
      // An order that never rested has no hash yet.
      const id = this.id(slot);
      const hash = num[n + HASH] as number;
      window.setStrings(at, id, Number.isNaN(hash) ? idHash(id) : hash, cid);
      if (Number.isNaN(created)) window.setTimeText(at, this.times.text(slot, created));
      if (cid !== null) this.onMove?.(slot, RECENT + at, trader, cid);
    }
    this.freeSlot(slot);
  }

  private freeSlot(slot: number): void {
    const k = slot * STRS;
    this.strs.set(k + ID, null);
    this.strs.set(k + CLIENT_ID, null);
    this.times.forget(slot);
    this.int.set(slot, FLAGS, FREE);
    this.free.push(slot);
  }

  /** The order now rests (it is linked into a book): it joins the index of resting orders. */
  rests(slot: number): void {
    let hash = this.num.get(slot, HASH);
    if (Number.isNaN(hash)) {
      const id = this.id(slot);
      hash = id === this.lastId ? this.lastHash : idHash(id);
      this.num.set(slot, HASH, hash);
    }
    this.index.add(slot, hash);
  }

  /** The order left the book. */
  leaves(slot: number): void {
    this.index.remove(slot, this.num.get(slot, HASH));
    if (slot === this.lastSlot) this.lastSlot = NONE;
  }

  get restingCount(): number {
    return this.index.size;
  }

  /** `createdAt`: the admission time's text, or its code (createdCode) when it has one. */
  add(id: string, trader: number, market: number, flags: number, price: number, quantity: number, remaining: number, createdAt: string | number, clientOrderId: string | null, seq: number): number {
    const reused = this.free.pop();
    const slot = reused ?? this.size;
    if (slot === this.num.capacity) this.grow();
    const num = this.num.chunk(slot);
    const n = this.num.offset(slot);
    num[n + PRICE] = price;
    num[n + QUANTITY] = quantity;
    num[n + REMAINING] = remaining;
    num[n + FILLED] = 0;
    num[n + NOTIONAL] = 0;
    num[n + SEQ] = seq;
    // Hashed as it rests, if it does.
    num[n + HASH] = Number.NaN;
    if (typeof createdAt === 'number') {
      if (!Number.isSafeInteger(createdAt)) throw new Error(`order store: ${createdAt} is not a time code`);
      num[n + CREATED] = createdAt;
    } else {
      const created = this.times.code(slot, createdAt);
      num[n + CREATED] = created;
      if (!Number.isNaN(created)) {
        this.lastCreatedCode = created;
        this.lastCreatedText = createdAt;
      }
    }
    const int = this.int.chunk(slot);
    const i = this.int.offset(slot);
    int[i + TRADER] = trader;
    int[i + MARKET] = market;
    int[i + FLAGS] = flags;
    int[i + PREV] = NONE;
    int[i + NEXT] = NONE;
    int[i + LEVEL] = NONE;
    int[i + TPREV] = NONE;
    int[i + TNEXT] = NONE;
    const k = slot * STRS;
    this.strs.set(k + ID, id);
    this.strs.set(k + CLIENT_ID, clientOrderId);
    if (reused === undefined) this.size = slot + 1;
    return slot;
  }

  id(slot: number): string {
    return this.strs.get(slot * STRS + ID) as string;
  }
  /** The admission time of the command that submitted it. */
  createdAt(slot: number): string {
    const code = this.num.get(slot, CREATED);
    if (code === this.lastCreatedCode) return this.lastCreatedText;
    const text = this.times.text(slot, code);
    if (!Number.isNaN(code)) {
      this.lastCreatedCode = code;
      this.lastCreatedText = text;
    }
    return text;
  }
  /**
   * The admission time as a number (time-code.ts: microseconds since 1970) when its text is in the
   * canonical form, which createdAt writes back exactly; else its text.
   */
  createdCode(slot: number): number | string {
    const code = this.num.get(slot, CREATED);
    return Number.isNaN(code) ? this.times.text(slot, code) : code;
  }

  clientOrderId(slot: number): string | null {
    return this.strs.get(slot * STRS + CLIENT_ID);
  }

  price(slot: number): number {
    return this.num.get(slot, PRICE);
  }
  quantity(slot: number): number {
    return this.num.get(slot, QUANTITY);
  }
  remaining(slot: number): number {
    return this.num.get(slot, REMAINING);
  }
  setRemaining(slot: number, remaining: number): void {
    this.num.set(slot, REMAINING, remaining);
  }
  filled(slot: number): number {
    return this.num.get(slot, FILLED);
  }
  notional(slot: number): number {
    return this.num.get(slot, NOTIONAL);
  }
  /** A fill of `quantity` at `price` adds to the order's filled quantity and notional. */
  addFill(slot: number, quantity: number, price: number): void {
    const num = this.num.chunk(slot);
    const n = this.num.offset(slot);
    num[n + FILLED] = (num[n + FILLED] as number) + quantity;
    num[n + NOTIONAL] = (num[n + NOTIONAL] as number) + price * quantity;
  }
  /** Sets filled and notional as a snapshot recorded them. */
  setFills(slot: number, filled: number, notional: number): void {
    this.num.set(slot, FILLED, filled);
    this.num.set(slot, NOTIONAL, notional);
  }
  seq(slot: number): number {
    return this.num.get(slot, SEQ);
  }
  /** Interned trader and market (see Interner). */
  trader(slot: number): number {
    return this.int.get(slot, TRADER);
  }
  market(slot: number): number {
    return this.int.get(slot, MARKET);
  }
  flags(slot: number): number {
    return this.int.get(slot, FLAGS);
  }
  /** The order's neighbours in its price level's FIFO, and the level (NONE when it does not rest). */
  prev(slot: number): number {
    return this.int.get(slot, PREV);
  }
  next(slot: number): number {
    return this.int.get(slot, NEXT);
  }
  level(slot: number): number {
    return this.int.get(slot, LEVEL);
  }
  setPrev(slot: number, prev: number): void {
    this.int.set(slot, PREV, prev);
  }
  setNext(slot: number, next: number): void {
    this.int.set(slot, NEXT, next);
  }
  /** Links the order into a level's queue (or out of it, with NONE everywhere). */
  setLinks(slot: number, level: number, prev: number, next: number): void {
    const int = this.int.chunk(slot);
    const i = this.int.offset(slot);
    int[i + LEVEL] = level;
    int[i + PREV] = prev;
    int[i + NEXT] = next;
  }
  /** The order's neighbours in its trader's list of open orders (oldest first). */
  tprev(slot: number): number {
    return this.int.get(slot, TPREV);
  }
  tnext(slot: number): number {
    return this.int.get(slot, TNEXT);
  }
  setTprev(slot: number, prev: number): void {
    this.int.set(slot, TPREV, prev);
  }
  setTnext(slot: number, next: number): void {
    this.int.set(slot, TNEXT, next);
  }

  setStatus(slot: number, status: OrderStatus): void {
    this.int.set(slot, FLAGS, (this.int.get(slot, FLAGS) & ~STATUS_MASK) | statusBits(status));
  }

  /** Whether the order is open (a slot, or a window record's reference: those never are). */
  isOpen(slot: number): boolean {
    return slot < RECENT && (this.int.get(slot, FLAGS) & STATUS_MASK) === 0;
  }

  /** 0 for a buy, SELL for a sell. */
  sideBit(slot: number): number {
    return this.int.get(slot, FLAGS) & SELL;
  }

  side(slot: number): Side {
    return SIDES[this.sideBit(slot)] as Side;
  }

  /** The order's status (a slot or a window record's reference). */
  status(slot: number): OrderStatus {
    return statusOfFlags(slot < RECENT ? this.flags(slot) : (this.window as RecentOrders).get(slot - RECENT, R_FLAGS));
  }

  terms(slot: number): OrderTerms {
    return termsOf(this.flags(slot), this.clientOrderId(slot));
  }

  traderId(slot: number): string {
    return this.traderNames.nameOf(this.trader(slot));
  }

  marketId(slot: number): string {
    return this.marketNames.nameOf(this.market(slot));
  }

  /** The order in `slot` as it stands now (or as it finished, for a window record's reference). */
  record(slot: number): OrderRecord {
    if (slot >= RECENT) return this.recentRecord(slot - RECENT);
    return {
      id: this.id(slot),
      trader_id: this.traderId(slot),
      market: this.marketId(slot),
      side: this.side(slot),
      price: this.price(slot),
      quantity: this.quantity(slot),
      remaining: this.remaining(slot),
      created_at: this.createdAt(slot),
      terms: this.terms(slot),
      seq: this.seq(slot),
      status: this.status(slot),
      filled: this.filled(slot),
      notional: this.notional(slot),
    };
  }

  private recentRecord(at: number): OrderRecord {
    const w = this.window as RecentOrders;
    const flags = w.get(at, R_FLAGS);
    const created = w.get(at, R_CREATED);
    return {
      id: w.id(at),
      trader_id: this.traderNames.nameOf(w.get(at, R_TRADER)),
      market: this.marketNames.nameOf(w.get(at, R_MARKET)),
      side: SIDES[flags & SELL] as Side,
      price: w.get(at, R_PRICE),
      quantity: w.get(at, R_QUANTITY),
      remaining: w.get(at, R_REMAINING),
      created_at: Number.isNaN(created) ? w.timeText(at) : timeText(created),
      terms: termsOf(flags, w.clientOrderId(at)),
      seq: w.get(at, R_SEQ),
      status: statusOfFlags(flags),
      filled: w.get(at, R_FILLED),
      notional: w.get(at, R_NOTIONAL),
    };
  }

  /** The order in `slot` as clients see it (orderView of its record, without the record in between). */
  view(slot: number): OrderView {
    if (slot >= RECENT) return orderView(this.record(slot));
    const flags = this.flags(slot);
    const filled = this.filled(slot);
    const market = (flags & 2) !== 0;
    return {
      id: this.id(slot),
      trader_id: this.traderId(slot),
      market: this.marketId(slot),
      side: SIDES[flags & 1] as Side,
      price: market ? null : this.price(slot),
      quantity: this.quantity(slot),
      remaining: this.remaining(slot),
      created_at: this.createdAt(slot),
      client_order_id: this.clientOrderId(slot),
      type: market ? 'MARKET' : 'LIMIT',
      time_in_force: TIFS[(flags >> 2) & 3] as TimeInForce,
      self_trade_prevention: STPS[(flags >> 4) & 3] as SelfTradePrevention,
      status: statusOfFlags(flags),
      average_fill_price: filled === 0 ? null : this.notional(slot) / filled,
    };
  }

  /** Forgets every order (a reset). */
  clear(): void {
    this.size = 0;
    this.index.clear();
    this.finishedTotal = 0;
    this.finishedIds = null;
    this.window?.clear();
    this.retiring = [];
    this.retiringIds = null;
    this.lastSlot = NONE;
    this.released = 0;
    this.free = [];
    this.strs.clear();
    this.times.clear();
  }

  // One chunk at a time once the columns are past their first (slot-column.ts): making room for a
  // million more slots at once, as a doubling would, held a command for 20-50 ms.
  private grow(): void {
    this.num.reserve(this.size + 1);
    this.int.reserve(this.size + 1);
  }
}

function termsOf(flags: number, cid: string | null): OrderTerms {
  if ((flags & 0x3e) === 0 && cid === null) return PLAIN_LIMIT;
  return { type: TYPES[(flags >> 1) & 1] as OrderType, time_in_force: TIFS[(flags >> 2) & 3] as TimeInForce, self_trade_prevention: STPS[(flags >> 4) & 3] as SelfTradePrevention, client_order_id: cid };
}

/** An order record as clients see it. */
export function orderView(o: OrderRecord): OrderView {
  const t = o.terms;
  return {
    id: o.id,
    trader_id: o.trader_id,
    market: o.market,
    side: o.side,
    price: t.type === 'MARKET' ? null : o.price,
    quantity: o.quantity,
    remaining: o.remaining,
    created_at: o.created_at,
    client_order_id: t.client_order_id,
    type: t.type,
    time_in_force: t.time_in_force,
    self_trade_prevention: t.self_trade_prevention,
    status: o.status,
    average_fill_price: o.filled === 0 ? null : o.notional / o.filled,
  };
}
