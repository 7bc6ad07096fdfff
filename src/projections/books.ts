// The books projection: every market's order book, the open orders and a window of the most recently
// finished ones (orders/: flat slots), each trader's open orders and resting quantity per market and
// side (the worst-case risk check reads it). Applying an event also records its book effect
// (book-effect.ts), the ordered list of changes it made, which the market-data and private feeds are
// derived from, and tells of every order it finished (finished$): those records are the order history,
// which lives outside the live state (docs/architecture.md, "Live state and history").
import { EventSubject } from '../events/event-subject.ts';
import type { ExchangeEvent, EventOf, Side } from '../events/types.ts';
import { BookEffect, CAUSE_CANCELED, CAUSE_FILLED, CAUSE_RESET, CAUSE_SETTLED, ORDER_ADDED, ORDER_REMOVED, ORDER_UPDATED, TRADE, type BookEffectListener } from './book-effect.ts';
import { OrderBook } from './order-book.ts';
import { Interner } from '../events/interner.ts';
import { LevelStore } from './orders/level-store.ts';
import { NONE, OrderStore, orderView, RECENT_ORDERS, sideBit, statusBits, termsBits, type OrderRecord } from './orders/order-store.ts';
import type { OrderView } from './views.ts';

// Where readers have always found it.
export { orderView };

export type { OrderRecord, OrderTerms } from './orders/order-store.ts';

/** An order as a snapshot keeps it: every field of the record, its admission time as text or as its code. */
export type OrderSnapshot = Omit<OrderRecord, 'created_at'> & { readonly created_at: string | number };

/** An order as it finished (filled, canceled or expired): it never changes again. */
export interface FinishedOrder extends OrderRecord {
  /** The seq and time of the event that finished it. */
  readonly finished_seq: number;
  readonly finished_at: string;
}

export interface Exposure {
  readonly buy: number;
  readonly sell: number;
}


export class BooksProjection {
  readonly traderNames: Interner;
  readonly marketNames: Interner;
  /** The open orders and the most recently finished ones. */
  readonly orders: OrderStore;
  /** Every order an event finished, after the event's feeds have spoken; built only for a subscriber. */
  readonly finished$ = new EventSubject<FinishedOrder>();
  readonly levels = new LevelStore();
  private readonly byName = new Map<string, OrderBook>();
  private byIndex: (OrderBook | undefined)[] = [];
  /**
   * Per trader (interned index): its open orders in each market, oldest first, linked through the order
   * slots; [head, tail, count] at market * 3. Per market, so a cancel-all of one market walks only it.
   */
  private opens: (Int32Array | undefined)[] = [];
  /** Per trader: resting quantity at [market * 2 + side bit]. */
  private exposures: (Float64Array | undefined)[] = [];
  /** Per trader: client order id -> slot, for every order in the store that has one. */
  private clientIds: (Map<string, number> | undefined)[] = [];
  private clientIdTotal = 0;
  private readonly effect = new BookEffect();
  private readonly listeners: BookEffectListener[] = [];
  /** The slots the event being applied finished, in the order it finished them. */
  private finishedNow: number[] = [];

  constructor(traderNames = new Interner(), marketNames = new Interner(), recentOrders = RECENT_ORDERS) {
    this.traderNames = traderNames;
    this.marketNames = marketNames;
    this.orders = new OrderStore(traderNames, marketNames, recentOrders);
    this.orders.onRelease = (ref, trader, cid) => this.forgetClientId(ref, trader, cid);
    this.orders.onMove = (from, to, trader, cid) => {
      const ids = this.clientIds[trader];
      if (ids?.get(cid) === from) ids.set(cid, to);
    };
  }

  /** A feed to tell of every event's book effect (in the order listeners were added). */
  listen(listener: BookEffectListener): void {
    this.listeners.push(listener);
  }

  book(market: string): OrderBook | undefined {
    return this.byName.get(market);
  }

  /** A book by interned market (-1: never seen). */
  bookAt(market: number): OrderBook | undefined {
    return market < 0 ? undefined : this.byIndex[market];
  }

  markets(): IterableIterator<string> {
    return this.byName.keys();
  }

  get restingCount(): number {
    return this.orders.restingCount;
  }

  /** An open or recently finished order: its slot or window reference (OrderStore.slotOf), or NONE. */
  slotOf(id: string): number {
    return this.orders.slotOf(id);
  }

  /** The trader's open or recently finished order with this client order id: its slot or window reference, or NONE. */
  clientSlot(traderId: string, clientOrderId: string): number {
    const trader = this.traderNames.indexOf(traderId);
    if (trader === NONE) return NONE;
    return this.clientIds[trader]?.get(clientOrderId) ?? NONE;
  }

  /** A resting order. */
  order(id: string): OrderRecord | undefined {
    const slot = this.orders.restingSlot(id);
    return slot === NONE ? undefined : this.orders.record(slot);
  }

  /** An open or recently finished order (older ones are history: src/server/history/). */
  anyOrder(id: string): OrderRecord | undefined {
    const slot = this.orders.slotOf(id);
    return slot === NONE ? undefined : this.orders.record(slot);
  }

  /** A trader's open or recently finished order with this client order id. */
  byClientId(traderId: string, clientOrderId: string): OrderRecord | undefined {
    const slot = this.clientSlot(traderId, clientOrderId);
    return slot === NONE ? undefined : this.orders.record(slot);
  }

  /** Every order in the store: open, and finished but not let go yet (in the window of recently finished ones). */
  *allOrders(): IterableIterator<OrderRecord> {
    for (let slot = 0; slot < this.orders.size; slot++) if (this.orders.inUse(slot)) yield this.orders.record(slot);
    for (const ref of this.orders.recentRefs()) yield this.orders.record(ref);
  }

  get clientIdCount(): number {
    return this.clientIdTotal;
  }

  /** Resting quantity of one trader in one market on one side (0 BUY, 1 SELL), by interned trader and market (-1: never seen): what the worst-case risk check adds. */
  restingAt(trader: number, market: number, side: number): number {
    if (trader < 0 || market < 0) return 0;
    return this.exposures[trader]?.[market * 2 + side] ?? 0;
  }

  /** How many orders one trader has resting in one market, by interned trader and market (-1: never seen). */
  openCountAt(trader: number, market: number): number {
    if (trader < 0 || market < 0) return 0;
    const opens = this.opens[trader];
    return opens === undefined || market * 3 >= opens.length ? 0 : (opens[market * 3 + 2] as number);
  }

  /** Resting quantity per side of one trader in one market. */
  exposure(traderId: string, market: string): Exposure {
    const trader = this.traderNames.indexOf(traderId);
    const m = this.marketNames.indexOf(market);
    return { buy: this.restingAt(trader, m, 0), sell: this.restingAt(trader, m, 1) };
  }

  /** The trader's resting orders, oldest first (created_at, then id), optionally of one market. */
  openOrders(traderId: string, market?: string): OrderView[] {
    return this.openOrderRecords(traderId, market).map(orderView);
  }

  openOrderRecords(traderId: string, market?: string): OrderRecord[] {
    const trader = this.traderNames.indexOf(traderId);
    const opens = trader === NONE ? undefined : this.opens[trader];
    if (opens === undefined) return [];
    const out: OrderRecord[] = [];
    if (market !== undefined) {
      const m = this.marketNames.indexOf(market);
      if (m === NONE || m * 3 >= opens.length) return [];
      for (let slot = opens[m * 3] as number; slot !== NONE; slot = this.orders.tnext(slot)) out.push(this.orders.record(slot));
    } else {
      for (let m = 0; m * 3 < opens.length; m++) for (let slot = opens[m * 3] as number; slot !== NONE; slot = this.orders.tnext(slot)) out.push(this.orders.record(slot));
    }
    // Each list is in submission order, which is created_at order but for ties (and across markets).
    for (let i = 1; i < out.length; i++) if (byCreatedThenId(out[i - 1] as OrderRecord, out[i] as OrderRecord) > 0) return out.sort(byCreatedThenId);
    return out;
  }

  marketOrderCount(market: string): number {
    return this.byName.get(market)?.orderCount ?? 0;
  }

  /**
   * Every resting order, book by book, each side best first and FIFO within a price: what a snapshot
   * keeps of the books (finished orders are history).
   */
  *restingRecords(): IterableIterator<OrderRecord> {
    for (const slot of this.restingSlots()) yield this.orders.record(slot);
  }

  /** The slots of restingRecords, in its order. */
  *restingSlots(): IterableIterator<number> {
    for (const book of this.byName.values()) for (const side of [book.bids, book.asks]) yield* side.orderSlots();
  }

  /** Adds resting orders from a snapshot; pushing in the listed order restores every queue's priority. */
  restoreResting(records: Iterable<OrderSnapshot>): void {
    for (const v of records) this.rest(this.addRecord(v));
  }

  private addRecord(v: OrderSnapshot): number {
    const t = v.terms;
    const flags = sideBit(v.side) | termsBits(t.type, t.time_in_force, t.self_trade_prevention) | statusBits(v.status);
    const slot = this.orders.add(v.id, this.traderNames.intern(v.trader_id), this.marketNames.intern(v.market), flags, v.price, v.quantity, v.remaining, v.created_at, t.client_order_id, v.seq);
    this.orders.setFills(slot, v.filled, v.notional);
    this.rememberClientId(slot);
    return slot;
  }

  apply(event: ExchangeEvent): void {
    // Finished orders past the window go now, after the last event's replies were built from them.
    this.orders.release();
    this.finishedNow.length = 0;
    const effect = this.effect;
    effect.begin(event);
    switch (event.type) {
      case 'OrderSubmitted':
        this.applySubmitted(event);
        break;
      case 'OrderAmended': {
        const slot = this.mustFind(event.data.order_id);
        const orders = this.orders;
        // An amend to the same remaining is accepted and changes nothing, not even the feeds.
        if (orders.remaining(slot) === event.data.remaining) break;
        this.addExposure(slot, event.data.remaining - orders.remaining(slot));
        this.sideOfSlot(slot).reduce(slot, event.data.remaining);
        effect.push(ORDER_UPDATED, slot, 0);
        break;
      }
      case 'OrderCanceled':
        this.cancel(this.mustFind(event.data.order_id), CAUSE_CANCELED);
        break;
      case 'OrdersCanceled':
        for (const ref of event.data.orders) this.cancel(this.mustFind(ref.order_id), CAUSE_CANCELED);
        break;
      case 'TraderDisabled':
        for (const ref of event.data.canceled_orders) this.cancel(this.mustFind(ref.order_id), CAUSE_CANCELED);
        break;
      case 'MarketSettled': {
        const book = this.byName.get(event.data.market_id);
        if (book !== undefined) this.clearBook(book, CAUSE_SETTLED);
        break;
      }
      case 'TradingReset':
        for (const book of this.byName.values()) this.clearBook(book, CAUSE_RESET);
        break;
      case 'MarketDeleted': {
        this.byName.delete(event.data.market_id);
        const m = this.marketNames.indexOf(event.data.market_id);
        if (m !== NONE) this.byIndex[m] = undefined;
        break;
      }
      default:
        break;
    }
    if (!effect.isEmpty) for (const listener of this.listeners) listener.bookEffect(effect);
    if (this.finishedNow.length > 0 && this.finished$.observed) this.tellFinished(event);
    // Client order ids are unique per trader since the last reset: the history starts again (after the
    // feeds have read the orders the reset removed).
    if (event.type === 'TradingReset') this.clearHistory();
  }

  private tellFinished(event: ExchangeEvent): void {
    for (const slot of this.finishedNow) this.finished$.next({ ...this.orders.record(slot), finished_seq: event.seq, finished_at: event.time });
  }

  /** The order will not change again: it leaves the live state for the window of finished orders. */
  private finish(slot: number): void {
    this.orders.finish(slot, (this.effect.event as ExchangeEvent).seq);
    this.finishedNow.push(slot);
  }

  private applySubmitted(event: EventOf<'OrderSubmitted'>): void {
    const { order, fills, self_trade_canceled: selfCanceled, remaining, status } = event.data;
    const orders = this.orders;
    const effect = this.effect;
    const market = this.marketNames.intern(order.market);
    const book = this.bookFor(market, order.market);
    const flags = sideBit(order.side) | termsBits(order.type, order.time_in_force, order.self_trade_prevention);
    const taker = orders.add(order.id, this.traderNames.intern(order.trader_id), market, flags, order.price ?? 0, order.quantity, remaining, event.time, order.client_order_id, event.seq);
    effect.taker = taker;
    let canceledAt = 0;
    for (let i = 0; i <= fills.length; i++) {
      // Self-trade prevention took these out of the book before fill i was made.
      while (canceledAt < selfCanceled.length && (selfCanceled[canceledAt] as { after_fills: number }).after_fills === i) {
        this.cancel(this.mustFind((selfCanceled[canceledAt] as { order_id: string }).order_id), CAUSE_CANCELED);
        canceledAt++;
      }
      const fill = fills[i];
      if (fill === undefined) break;
      const maker = this.mustFind(fill.maker_order_id);
      const makerSide = book.sideOf(orders.side(maker));
      this.addExposure(maker, fill.maker_remaining - orders.remaining(maker));
      orders.addFill(maker, fill.quantity, fill.price);
      orders.addFill(taker, fill.quantity, fill.price);
      if (fill.maker_remaining === 0) {
        makerSide.reduce(maker, 0);
        orders.setStatus(maker, 'filled');
        effect.push(ORDER_REMOVED, maker, CAUSE_FILLED);
        this.unlink(maker);
        this.finish(maker);
      } else {
        makerSide.reduce(maker, fill.maker_remaining);
        effect.push(ORDER_UPDATED, maker, 0);
      }
      effect.push(TRADE, maker, i);
    }
    orders.setStatus(taker, status);
    this.rememberClientId(taker);
    if (remaining > 0) {
      this.rest(taker);
      effect.push(ORDER_ADDED, taker, 0);
    } else {
      // What neither filled nor rests was canceled (or expired): the record keeps that quantity.
      orders.setRemaining(taker, order.quantity - orders.filled(taker));
      this.finish(taker);
    }
  }

  /** Links an open order into its book, its trader's open orders and its exposure. */
  private rest(slot: number): void {
    const orders = this.orders;
    const market = orders.market(slot);
    this.bookFor(market, this.marketNames.nameOf(market)).sideOf(orders.side(slot)).push(slot);
    const opens = this.opensOf(orders.trader(slot), market);
    const at = market * 3;
    const tail = opens[at + 1] as number;
    orders.setTprev(slot, tail);
    orders.setTnext(slot, NONE);
    if (tail === NONE) opens[at] = slot;
    else orders.setTnext(tail, slot);
    opens[at + 1] = slot;
    opens[at + 2] = (opens[at + 2] as number) + 1;
    this.addExposure(slot, orders.remaining(slot));
    orders.rests(slot);
  }

  private cancel(slot: number, cause: number): void {
    this.orders.setStatus(slot, 'canceled');
    this.effect.push(ORDER_REMOVED, slot, cause);
    this.addExposure(slot, -this.orders.remaining(slot));
    this.unlink(slot);
    this.finish(slot);
  }

  private clearBook(book: OrderBook, cause: number): void {
    for (const side of [book.bids, book.asks]) {
      const doomed = [...side.orderSlots()];
      for (const slot of doomed) this.cancel(slot, cause);
    }
  }

  /** Takes an order out of its book and its trader's open orders (its exposure is the caller's). */
  private unlink(slot: number): void {
    const orders = this.orders;
    this.sideOfSlot(slot).remove(slot);
    const market = orders.market(slot);
    const opens = this.opensOf(orders.trader(slot), market);
    const at = market * 3;
    const prev = orders.tprev(slot);
    const next = orders.tnext(slot);
    if (prev === NONE) opens[at] = next;
    else orders.setTnext(prev, next);
    if (next === NONE) opens[at + 1] = prev;
    else orders.setTprev(next, prev);
    orders.setTprev(slot, NONE);
    orders.setTnext(slot, NONE);
    opens[at + 2] = (opens[at + 2] as number) - 1;
    orders.leaves(slot);
  }

  private addExposure(slot: number, quantity: number): void {
    const orders = this.orders;
    const trader = orders.trader(slot);
    const i = orders.market(slot) * 2 + orders.sideBit(slot);
    let exposure = this.exposures[trader];
    if (exposure === undefined || i >= exposure.length) {
      const grown = new Float64Array(Math.max(16, (this.marketNames.size + 8) * 2));
      if (exposure !== undefined) grown.set(exposure);
      this.exposures[trader] = exposure = grown;
    }
    exposure[i] = (exposure[i] as number) + quantity;
  }

  private rememberClientId(slot: number): void {
    const cid = this.orders.clientOrderId(slot);
    if (cid === null || cid === undefined) return;
    const trader = this.orders.trader(slot);
    let ids = this.clientIds[trader];
    if (ids === undefined) {
      ids = new Map();
      this.clientIds[trader] = ids;
    }
    if (!ids.has(cid)) this.clientIdTotal++;
    ids.set(cid, slot);
  }

  /** A finished order leaves the store: its client order id is looked up in the history from now on. */
  private forgetClientId(ref: number, trader: number, cid: string): void {
    const ids = this.clientIds[trader];
    if (ids?.get(cid) !== ref) return;
    ids.delete(cid);
    this.clientIdTotal--;
  }

  private clearHistory(): void {
    this.orders.clear();
    this.clientIds = [];
    this.clientIdTotal = 0;
  }

  /** The slot of a resting order an event names; an event naming any other is a fault. */
  private mustFind(id: string): number {
    const slot = this.orders.restingSlot(id);
    if (slot === NONE) throw new Error(`books: event refers to order ${id}, which is not resting`);
    return slot;
  }

  private sideOfSlot(slot: number) {
    const market = this.orders.market(slot);
    return this.bookFor(market, this.marketNames.nameOf(market)).sideOf(this.orders.side(slot));
  }

  private bookFor(market: number, name: string): OrderBook {
    let book = this.byIndex[market];
    if (book === undefined) {
      book = new OrderBook(name, this.orders, this.levels);
      this.byIndex[market] = book;
      this.byName.set(name, book);
    }
    return book;
  }

  /** The trader's open-order lists, with room for `market`. */
  private opensOf(trader: number, market: number): Int32Array {
    let opens = this.opens[trader];
    if (opens === undefined || market * 3 >= opens.length) {
      const grown = new Int32Array(Math.max(8, this.marketNames.size + 8) * 3);
      for (let i = 0; i < grown.length; i += 3) grown[i] = grown[i + 1] = NONE;
      if (opens !== undefined) grown.set(opens);
      this.opens[trader] = opens = grown;
    }
    return opens;
  }

  /** Every book consistent and every index agreeing with the books; used after every step in tests. */
  checkConsistency(): void {
    const orders = this.orders;
    let total = 0;
    for (const [name, book] of this.byName) {
      if (this.byIndex[this.marketNames.indexOf(name)] !== book) throw new Error(`book ${name} missing from the market index`);
      book.checkConsistency();
      total += book.orderCount;
    }
    if (total !== this.restingCount) throw new Error(`${this.restingCount} orders indexed resting, books hold ${total}`);
    const sums = new Map<string, number>();
    let listed = 0;
    for (let trader = 0; trader < this.opens.length; trader++) {
      const opens = this.opens[trader];
      if (opens === undefined) continue;
      for (let at = 0; at < opens.length; at += 3) {
        let count = 0;
        let prev = NONE;
        for (let slot = opens[at] as number; slot !== NONE; slot = orders.tnext(slot)) {
          if (orders.tprev(slot) !== prev) throw new Error(`broken open-order link at ${orders.id(slot)}`);
          if (orders.trader(slot) !== trader || orders.market(slot) !== at / 3) throw new Error(`order ${orders.id(slot)} listed under another trader or market`);
          if (orders.level(slot) === NONE) throw new Error(`order ${orders.id(slot)} listed open but not in the book`);
          const key = `${trader}|${orders.market(slot)}|${orders.sideBit(slot)}`;
          sums.set(key, (sums.get(key) ?? 0) + orders.remaining(slot));
          prev = slot;
          count++;
        }
        if (opens[at + 1] !== prev || opens[at + 2] !== count) throw new Error(`open orders of trader ${this.traderNames.nameOf(trader)} in ${this.marketNames.nameOf(at / 3)} miscounted`);
        listed += count;
      }
    }
    if (listed !== this.restingCount) throw new Error(`${listed} open orders listed, ${this.restingCount} resting`);
    for (let trader = 0; trader < this.exposures.length; trader++) {
      const exposure = this.exposures[trader];
      if (exposure === undefined) continue;
      for (let i = 0; i < exposure.length; i++) {
        const want = sums.get(`${trader}|${i >> 1}|${i & 1}`) ?? 0;
        if (exposure[i] !== want) throw new Error(`exposure of ${this.traderNames.nameOf(trader)} in ${this.marketNames.nameOf(i >> 1)} is ${exposure[i]}, books say ${want}`);
      }
    }
    let clientIds = 0;
    let kept = 0;
    for (let slot = 0; slot < orders.size; slot++) {
      if (!orders.inUse(slot)) continue;
      kept++;
      const o = orders.record(slot);
      if (orders.slotOf(o.id) !== slot) throw new Error(`order ${o.id} missing from the id index`);
      const rests = orders.level(slot) !== NONE;
      if (rests !== (orders.restingSlot(o.id) === slot)) throw new Error(`order ${o.id} ${rests ? 'rests but is not' : 'is'} in the index of resting orders`);
      if (rests !== (o.status === 'open')) throw new Error(`order ${o.id} is ${o.status} but ${rests ? 'rests' : 'does not rest'}`);
      if (o.filled + (o.status === 'filled' ? 0 : o.remaining) > o.quantity) throw new Error(`order ${o.id} filled ${o.filled} + remaining ${o.remaining} > quantity ${o.quantity}`);
      const cid = o.terms.client_order_id;
      if (cid !== null) {
        if (this.clientSlot(o.trader_id, cid) !== slot) throw new Error(`order ${o.id} missing from the client order id index`);
        clientIds++;
      }
    }
    for (const ref of orders.recentRefs()) {
      kept++;
      const o = orders.record(ref);
      if (o.status === 'open') throw new Error(`order ${o.id} is open in the window of finished orders`);
      if (orders.slotOf(o.id) !== ref) throw new Error(`order ${o.id} is not found in the window`);
      const cid = o.terms.client_order_id;
      if (cid !== null) {
        if (this.clientSlot(o.trader_id, cid) !== ref) throw new Error(`order ${o.id} in the window is missing from the client order id index`);
        clientIds++;
      }
    }
    if (clientIds !== this.clientIdTotal) throw new Error(`${this.clientIdTotal} client order ids counted, ${clientIds} found`);
    if (kept !== orders.count) throw new Error(`${orders.count} orders counted in the store, ${kept} found`);
    if (orders.finishedCount > orders.recent + this.finishedNow.length) throw new Error(`${orders.finishedCount} finished orders kept, the window is ${orders.recent}`);
  }
}

export function byCreatedThenId(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
