// The books projection: every market's order book, the index from order id to resting order, each
// trader's open orders and resting quantity per market and side (the worst-case risk check reads it).
// Applying an event also yields its book effect, the ordered list of changes it made, which the
// market-data feed and the private feed are derived from.
import { Subject } from 'rxjs';
import type { ExchangeEvent, EventOf, Side } from '../events/types.ts';
import { OrderArchive } from './order-archive.ts';
import { OrderBook, PLAIN_LIMIT as PLAIN, RestingOrder, type OrderTerms } from './order-book.ts';
import type { FillView, OrderView } from './views.ts';

export type RemovalCause = 'filled' | 'canceled' | 'settled' | 'reset';

/** An order as a snapshot keeps it: every field of the record. */
export interface OrderSnapshot {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  readonly price: number;
  readonly quantity: number;
  readonly remaining: number;
  readonly created_at: string;
  readonly terms: OrderTerms;
  readonly seq: number;
  readonly status: RestingOrder['status'];
  readonly filled: number;
  readonly notional: number;
}

export type BookChange =
  | { readonly kind: 'order_added'; readonly order: OrderView }
  | { readonly kind: 'order_updated'; readonly order: OrderView }
  | { readonly kind: 'order_removed'; readonly order: OrderView; readonly cause: RemovalCause }
  | { readonly kind: 'trade'; readonly fill: FillView; readonly maker_trader_id: string; readonly taker_trader_id: string; readonly taker_side: Side };

export interface BookEffect {
  readonly event: ExchangeEvent;
  /** In the order they happened; for a crossing order, per execution the maker's change then the trade. */
  readonly changes: readonly BookChange[];
  /** For OrderSubmitted: the taker order after matching. */
  readonly taker: OrderView | null;
}

export interface Exposure {
  buy: number;
  sell: number;
}

interface TraderOrders {
  readonly orders: Map<string, RestingOrder>;
  readonly exposure: Map<string, Exposure>;
}

export function orderView(o: RestingOrder): OrderView {
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

function orderSnapshot(o: RestingOrder): OrderSnapshot {
  return { id: o.id, trader_id: o.trader_id, market: o.market, side: o.side, price: o.price, quantity: o.quantity, remaining: o.remaining, created_at: o.created_at, terms: o.terms, seq: o.seq, status: o.status, filled: o.filled, notional: o.notional };
}

function fromSnapshot(v: OrderSnapshot): RestingOrder {
  const o = new RestingOrder(v.id, v.trader_id, v.market, v.side, v.price, v.quantity, v.remaining, v.created_at, v.terms, v.seq);
  o.status = v.status;
  o.filled = v.filled;
  o.notional = v.notional;
  return o;
}

const NO_EXPOSURE: Exposure = Object.freeze({ buy: 0, sell: 0 });

export class BooksProjection {
  private readonly books = new Map<string, OrderBook>();
  private readonly index = new Map<string, RestingOrder>();
  private readonly traders = new Map<string, TraderOrders>();
  /** Every order since the last reset that no longer rests (those that do are in `index`). */
  private readonly archive = new OrderArchive();
  /** Per trader: client order id -> order id, for every order since the last reset that had one. */
  private readonly clientIds = new Map<string, Map<string, string>>();
  readonly effects$ = new Subject<BookEffect>();

  book(market: string): OrderBook | undefined {
    return this.books.get(market);
  }

  markets(): IterableIterator<string> {
    return this.books.keys();
  }

  order(id: string): RestingOrder | undefined {
    return this.index.get(id);
  }

  get restingCount(): number {
    return this.index.size;
  }

  /** An order in any status since the last reset. */
  anyOrder(id: string): RestingOrder | undefined {
    return this.index.get(id) ?? this.archive.get(id);
  }

  /** A trader's order with this client order id, in any status since the last reset. */
  byClientId(traderId: string, clientOrderId: string): RestingOrder | undefined {
    const id = this.clientIds.get(traderId)?.get(clientOrderId);
    return id === undefined ? undefined : this.anyOrder(id);
  }

  /** Every order since the last reset: the resting ones, then the others (as detached records). */
  *allOrders(): IterableIterator<RestingOrder> {
    yield* this.index.values();
    yield* this.archive.all();
  }

  get clientIdCount(): number {
    let n = 0;
    for (const ids of this.clientIds.values()) n += ids.size;
    return n;
  }

  /** Resting quantity per side of one trader in one market. */
  exposure(traderId: string, market: string): Exposure {
    return this.traders.get(traderId)?.exposure.get(market) ?? NO_EXPOSURE;
  }

  /** The trader's resting orders, oldest first (created_at, then id), optionally of one market. */
  openOrders(traderId: string, market?: string): OrderView[] {
    return this.openOrderRecords(traderId, market).map(orderView);
  }

  openOrderRecords(traderId: string, market?: string): RestingOrder[] {
    const mine = this.traders.get(traderId);
    if (mine === undefined) return [];
    const out: RestingOrder[] = [];
    for (const o of mine.orders.values()) if (market === undefined || o.market === market) out.push(o);
    return out.sort(byCreatedThenId);
  }

  marketOrderCount(market: string): number {
    return this.books.get(market)?.orderCount ?? 0;
  }

  /**
   * Every resting order, book by book, each side best first and FIFO within a price; then every order
   * that no longer rests, in submission order.
   */
  snapshot(): { resting: OrderSnapshot[]; done: OrderSnapshot[] } {
    const resting: OrderSnapshot[] = [];
    for (const book of this.books.values()) for (const side of [book.bids, book.asks]) for (const o of side.orders()) resting.push(orderSnapshot(o));
    const done: OrderSnapshot[] = [];
    for (const o of this.archive.all()) done.push(orderSnapshot(o));
    return { resting, done };
  }

  /** Rebuilds the books from a snapshot; pushing in the listed order restores every queue's priority. */
  restore(s: { readonly resting: readonly OrderSnapshot[]; readonly done: readonly OrderSnapshot[] }): void {
    for (const v of s.resting) {
      const o = fromSnapshot(v);
      this.bookOf(v.market).sideOf(v.side).push(o);
      this.index.set(o.id, o);
      this.traderOrders(o.trader_id).orders.set(o.id, o);
      this.exposureOf(o.trader_id, o.market)[o.side === 'BUY' ? 'buy' : 'sell'] += o.remaining;
      this.rememberClientId(o);
    }
    for (const v of s.done) {
      const o = fromSnapshot(v);
      this.archive.add(o);
      this.rememberClientId(o);
    }
  }

  private rememberClientId(o: RestingOrder): void {
    const cid = o.terms.client_order_id;
    if (cid === null) return;
    let ids = this.clientIds.get(o.trader_id);
    if (ids === undefined) {
      ids = new Map();
      this.clientIds.set(o.trader_id, ids);
    }
    ids.set(cid, o.id);
  }

  apply(event: ExchangeEvent): void {
    const changes: BookChange[] = [];
    let taker: OrderView | null = null;
    switch (event.type) {
      case 'OrderSubmitted':
        taker = this.applySubmitted(event, changes);
        break;
      case 'OrderAmended': {
        const o = this.mustFind(event.data.order_id);
        // An amend to the same remaining is accepted and changes nothing, not even the feeds.
        if (o.remaining === event.data.remaining) break;
        this.exposureOf(o.trader_id, o.market)[o.side === 'BUY' ? 'buy' : 'sell'] -= o.remaining - event.data.remaining;
        this.bookOf(o.market).sideOf(o.side).reduce(o, event.data.remaining);
        changes.push({ kind: 'order_updated', order: orderView(o) });
        break;
      }
      case 'OrderCanceled': {
        const o = this.mustFind(event.data.order_id);
        o.status = 'canceled';
        changes.push({ kind: 'order_removed', order: orderView(o), cause: 'canceled' });
        this.unlink(o);
        break;
      }
      case 'OrdersCanceled':
        for (const ref of event.data.orders) {
          const o = this.mustFind(ref.order_id);
          o.status = 'canceled';
          changes.push({ kind: 'order_removed', order: orderView(o), cause: 'canceled' });
          this.unlink(o);
        }
        break;
      case 'TraderDisabled':
        for (const ref of event.data.canceled_orders) {
          const o = this.mustFind(ref.order_id);
          o.status = 'canceled';
          changes.push({ kind: 'order_removed', order: orderView(o), cause: 'canceled' });
          this.unlink(o);
        }
        break;
      case 'MarketSettled': {
        const book = this.books.get(event.data.market_id);
        if (book !== undefined) this.clearBook(book, 'settled', changes);
        break;
      }
      case 'TradingReset':
        for (const book of this.books.values()) this.clearBook(book, 'reset', changes);
        // Client order ids are unique per trader since the last reset: the history starts again.
        this.archive.clear();
        this.clientIds.clear();
        break;
      case 'MarketDeleted':
        this.books.delete(event.data.market_id);
        break;
      default:
        break;
    }
    if (changes.length > 0 || taker !== null) this.effects$.next({ event, changes, taker });
  }

  private applySubmitted(event: EventOf<'OrderSubmitted'>, changes: BookChange[]): OrderView {
    const { order, fills, self_trade_canceled: selfCanceled, remaining, status } = event.data;
    const book = this.bookOf(order.market);
    const terms: OrderTerms =
      order.type === 'LIMIT' && order.time_in_force === 'GTC' && order.self_trade_prevention === 'NONE' && order.client_order_id === null
        ? PLAIN
        : { type: order.type, time_in_force: order.time_in_force, self_trade_prevention: order.self_trade_prevention, client_order_id: order.client_order_id };
    const taker = new RestingOrder(order.id, order.trader_id, order.market, order.side, order.price ?? 0, order.quantity, remaining, event.time, terms, event.seq);
    let canceledAt = 0;
    for (let i = 0; i <= fills.length; i++) {
      // Self-trade prevention took these out of the book before fill i was made.
      while (canceledAt < selfCanceled.length && (selfCanceled[canceledAt] as { after_fills: number }).after_fills === i) {
        const o = this.mustFind((selfCanceled[canceledAt] as { order_id: string }).order_id);
        o.status = 'canceled';
        changes.push({ kind: 'order_removed', order: orderView(o), cause: 'canceled' });
        this.unlink(o);
        canceledAt++;
      }
      const fill = fills[i];
      if (fill === undefined) break;
      const maker = this.mustFind(fill.maker_order_id);
      const makerSide = book.sideOf(maker.side);
      this.exposureOf(maker.trader_id, maker.market)[maker.side === 'BUY' ? 'buy' : 'sell'] -= maker.remaining - fill.maker_remaining;
      maker.filled += fill.quantity;
      maker.notional += fill.price * fill.quantity;
      taker.filled += fill.quantity;
      taker.notional += fill.price * fill.quantity;
      if (fill.maker_remaining === 0) {
        makerSide.reduce(maker, 0);
        maker.status = 'filled';
        changes.push({ kind: 'order_removed', order: orderView(maker), cause: 'filled' });
        this.unlink(maker, false);
      } else {
        makerSide.reduce(maker, fill.maker_remaining);
        changes.push({ kind: 'order_updated', order: orderView(maker) });
      }
      changes.push({
        kind: 'trade',
        fill: { fill_id: fill.fill_id, market: order.market, maker_order_id: maker.id, taker_order_id: order.id, price: fill.price, quantity: fill.quantity, occurred_at: event.time },
        maker_trader_id: maker.trader_id,
        taker_trader_id: order.trader_id,
        taker_side: order.side,
      });
    }
    taker.status = status;
    // What neither filled nor rests was canceled (or expired): the record keeps that quantity.
    if (remaining === 0) taker.remaining = order.quantity - taker.filled;
    this.rememberClientId(taker);
    if (remaining === 0) this.archive.add(taker);
    if (remaining > 0) {
      book.sideOf(order.side).push(taker);
      this.index.set(order.id, taker);
      const mine = this.traderOrders(order.trader_id);
      mine.orders.set(order.id, taker);
      this.exposureOf(order.trader_id, order.market)[order.side === 'BUY' ? 'buy' : 'sell'] += remaining;
      const view = orderView(taker);
      changes.push({ kind: 'order_added', order: view });
      return view;
    }
    return orderView(taker);
  }

  private clearBook(book: OrderBook, cause: RemovalCause, changes: BookChange[]): void {
    for (const side of [book.bids, book.asks]) {
      const doomed = [...side.orders()];
      for (const o of doomed) {
        o.status = 'canceled';
        changes.push({ kind: 'order_removed', order: orderView(o), cause });
        this.unlink(o);
      }
    }
  }

  /** Takes an order out of the book and every index; `adjust` false when its exposure was already taken off. */
  private unlink(o: RestingOrder, adjust = true): void {
    // Its status is final by now (filled or canceled): it moves to the archive.
    this.archive.add(o);
    if (adjust) this.exposureOf(o.trader_id, o.market)[o.side === 'BUY' ? 'buy' : 'sell'] -= o.remaining;
    this.bookOf(o.market).sideOf(o.side).remove(o);
    this.index.delete(o.id);
    const mine = this.traders.get(o.trader_id);
    if (mine !== undefined) {
      mine.orders.delete(o.id);
      const exposure = mine.exposure.get(o.market);
      if (exposure !== undefined && exposure.buy === 0 && exposure.sell === 0) mine.exposure.delete(o.market);
      if (mine.orders.size === 0) this.traders.delete(o.trader_id);
    }
  }

  private mustFind(id: string): RestingOrder {
    const o = this.index.get(id);
    if (o === undefined) throw new Error(`books: event refers to order ${id}, which is not resting`);
    return o;
  }

  private bookOf(market: string): OrderBook {
    let book = this.books.get(market);
    if (book === undefined) {
      book = new OrderBook(market);
      this.books.set(market, book);
    }
    return book;
  }

  private traderOrders(traderId: string): TraderOrders {
    let mine = this.traders.get(traderId);
    if (mine === undefined) {
      mine = { orders: new Map(), exposure: new Map() };
      this.traders.set(traderId, mine);
    }
    return mine;
  }

  private exposureOf(traderId: string, market: string): Exposure {
    const mine = this.traderOrders(traderId);
    let exposure = mine.exposure.get(market);
    if (exposure === undefined) {
      exposure = { buy: 0, sell: 0 };
      mine.exposure.set(market, exposure);
    }
    return exposure;
  }

  /** Every book consistent and every index agreeing with the books; used after every step in tests. */
  checkConsistency(): void {
    let total = 0;
    const sums = new Map<string, number>();
    for (const book of this.books.values()) {
      book.checkConsistency();
      for (const side of [book.bids, book.asks]) {
        for (const o of side.orders()) {
          total++;
          if (this.index.get(o.id) !== o) throw new Error(`order ${o.id} missing from the index`);
          if (this.traders.get(o.trader_id)?.orders.get(o.id) !== o) throw new Error(`order ${o.id} missing from its trader's open orders`);
          const key = `${o.trader_id}|${o.market}|${o.side}`;
          sums.set(key, (sums.get(key) ?? 0) + o.remaining);
        }
      }
    }
    if (total !== this.index.size) throw new Error(`index holds ${this.index.size} orders, books ${total}`);
    for (const o of this.allOrders()) {
      const rests = this.index.get(o.id) !== undefined;
      if (rests !== (o.status === 'open')) throw new Error(`order ${o.id} is ${o.status} but ${rests ? 'rests' : 'does not rest'}`);
      if (rests && this.archive.has(o.id)) throw new Error(`order ${o.id} rests and is archived`);
      if (o.filled + (o.status === 'filled' ? 0 : o.remaining) > o.quantity) throw new Error(`order ${o.id} filled ${o.filled} + remaining ${o.remaining} > quantity ${o.quantity}`);
      const cid = o.terms.client_order_id;
      if (cid !== null && this.clientIds.get(o.trader_id)?.get(cid) !== o.id) throw new Error(`order ${o.id} missing from the client order id index`);
    }
    for (const [traderId, mine] of this.traders) {
      for (const [market, e] of mine.exposure) {
        const buy = sums.get(`${traderId}|${market}|BUY`) ?? 0;
        const sell = sums.get(`${traderId}|${market}|SELL`) ?? 0;
        if (e.buy !== buy || e.sell !== sell) throw new Error(`exposure of ${traderId} in ${market} is ${e.buy}/${e.sell}, books say ${buy}/${sell}`);
      }
    }
  }
}

export function byCreatedThenId(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function sideSign(side: Side): 1 | -1 {
  return side === 'BUY' ? 1 : -1;
}
