// The order book of one market, built like a matching engine's: price levels in a B+ tree (O(log L)
// insert, delete and best price), each level a FIFO of orders as an intrusive doubly linked list, so a
// cancel or amend by id (through the index the books projection keeps) never walks a level.
import btree from 'sorted-btree';
import type { OrderStatus, OrderType, SelfTradePrevention, Side, TimeInForce } from '../events/types.ts';

const BTree = btree.default;
type LevelTree = InstanceType<typeof BTree<number, PriceLevel>>;

/** The terms an order was submitted with, beyond side, price and quantity. */
export interface OrderTerms {
  readonly type: OrderType;
  readonly time_in_force: TimeInForce;
  readonly self_trade_prevention: SelfTradePrevention;
  readonly client_order_id: string | null;
}

export const PLAIN_LIMIT: OrderTerms = Object.freeze({ type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null });

/**
 * An order: while it rests, a node of its price level's FIFO; afterwards, the record that lookups by id
 * or client order id still find (one object for both, so a resting order costs no second record).
 */
export class RestingOrder {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  /** The limit price; 0 for a market order (which never rests; its views show null). */
  readonly price: number;
  readonly quantity: number;
  /** While open: what rests. Once canceled or expired: what was canceled. Filled: 0. */
  remaining: number;
  readonly created_at: string;
  readonly terms: OrderTerms;
  /** The seq of the event that submitted it. */
  readonly seq: number;
  status: OrderStatus = 'open';
  /** Quantity filled so far, and the sum of price * quantity over those fills. */
  filled = 0;
  notional = 0;
  prev: RestingOrder | null = null;
  next: RestingOrder | null = null;
  level: PriceLevel | null = null;

  constructor(id: string, trader_id: string, market: string, side: Side, price: number, quantity: number, remaining: number, created_at: string, terms: OrderTerms = PLAIN_LIMIT, seq = 0) {
    this.id = id;
    this.trader_id = trader_id;
    this.market = market;
    this.side = side;
    this.price = price;
    this.quantity = quantity;
    this.remaining = remaining;
    this.created_at = created_at;
    this.terms = terms;
    this.seq = seq;
  }
}

export class PriceLevel {
  readonly price: number;
  head: RestingOrder | null = null;
  tail: RestingOrder | null = null;
  count = 0;
  total = 0;

  constructor(price: number) {
    this.price = price;
  }
}

/** One side of a book. Bids are best at the highest price, asks at the lowest. */
export class BookSide {
  readonly side: Side;
  private readonly levels: LevelTree = new BTree<number, PriceLevel>();
  private best: PriceLevel | null = null;
  orderCount = 0;

  constructor(side: Side) {
    this.side = side;
  }

  get bestLevel(): PriceLevel | null {
    return this.best;
  }

  get levelCount(): number {
    return this.levels.size;
  }

  /** Appends an order at the back of its price level's queue. */
  push(order: RestingOrder): void {
    let level = this.levels.get(order.price);
    if (level === undefined) {
      level = new PriceLevel(order.price);
      this.levels.set(order.price, level);
      if (this.best === null || this.isBetter(order.price, this.best.price)) this.best = level;
    }
    order.level = level;
    order.prev = level.tail;
    order.next = null;
    if (level.tail === null) level.head = order;
    else level.tail.next = order;
    level.tail = order;
    level.count++;
    level.total += order.remaining;
    this.orderCount++;
  }

  /** Unlinks an order in O(1) (plus O(log L) when its level empties). */
  remove(order: RestingOrder): void {
    const level = order.level;
    if (level === null) throw new Error(`order ${order.id} is not in the book`);
    if (order.prev === null) level.head = order.next;
    else order.prev.next = order.next;
    if (order.next === null) level.tail = order.prev;
    else order.next.prev = order.prev;
    level.count--;
    level.total -= order.remaining;
    order.prev = order.next = order.level = null;
    this.orderCount--;
    if (level.count === 0) {
      this.levels.delete(level.price);
      if (this.best === level) this.best = this.findBest();
    }
  }

  /** Lowers a resting order's remaining in place; it keeps its place in the queue. */
  reduce(order: RestingOrder, remaining: number): void {
    const level = order.level;
    if (level === null) throw new Error(`order ${order.id} is not in the book`);
    level.total -= order.remaining - remaining;
    order.remaining = remaining;
  }

  /** The next worse level after `level` (towards the back of the book), or null. */
  levelAfter(level: PriceLevel): PriceLevel | null {
    const pair = this.side === 'BUY' ? this.levels.nextLowerPair(level.price) : this.levels.nextHigherPair(level.price);
    return pair === undefined ? null : pair[1];
  }

  /** Levels best first. */
  *levelsBestFirst(): IterableIterator<PriceLevel> {
    const entries = this.side === 'BUY' ? this.levels.entriesReversed() : this.levels.entries();
    for (const [, level] of entries) yield level;
  }

  /** Orders best price first, FIFO within a price. */
  *orders(): IterableIterator<RestingOrder> {
    for (const level of this.levelsBestFirst()) {
      for (let o = level.head; o !== null; o = o.next) yield o;
    }
  }

  private isBetter(price: number, than: number): boolean {
    return this.side === 'BUY' ? price > than : price < than;
  }

  private findBest(): PriceLevel | null {
    const key = this.side === 'BUY' ? this.levels.maxKey() : this.levels.minKey();
    return key === undefined ? null : (this.levels.get(key) ?? null);
  }

  /** Throws if any structural invariant is broken; used after every step in tests. */
  checkConsistency(): void {
    let previous: number | null = null;
    let orders = 0;
    for (const level of this.levelsBestFirst()) {
      if (previous !== null && !this.isBetter(previous, level.price)) throw new Error(`${this.side} levels out of order at ${level.price}`);
      previous = level.price;
      let count = 0;
      let total = 0;
      let back: RestingOrder | null = null;
      for (let o = level.head; o !== null; o = o.next) {
        if (o.prev !== back) throw new Error(`broken prev link at order ${o.id}`);
        if (o.level !== level) throw new Error(`order ${o.id} points at the wrong level`);
        if (o.price !== level.price || o.side !== this.side) throw new Error(`order ${o.id} on the wrong level or side`);
        if (!(o.remaining > 0)) throw new Error(`order ${o.id} rests with remaining ${o.remaining}`);
        count++;
        total += o.remaining;
        back = o;
      }
      if (level.tail !== back) throw new Error(`level ${level.price} tail is not its last order`);
      if (count === 0) throw new Error(`empty level ${level.price} kept`);
      if (count !== level.count || total !== level.total) throw new Error(`level ${level.price} totals are wrong`);
      orders += count;
    }
    if (orders !== this.orderCount) throw new Error(`${this.side} order count ${this.orderCount} but ${orders} linked`);
    const best = this.findBest();
    if (best !== this.best) throw new Error(`${this.side} best level cache is stale`);
  }
}

export class OrderBook {
  readonly market: string;
  readonly bids = new BookSide('BUY');
  readonly asks = new BookSide('SELL');

  constructor(market: string) {
    this.market = market;
  }

  sideOf(side: Side): BookSide {
    return side === 'BUY' ? this.bids : this.asks;
  }

  get orderCount(): number {
    return this.bids.orderCount + this.asks.orderCount;
  }

  get bestBid(): number | null {
    return this.bids.bestLevel?.price ?? null;
  }

  get bestAsk(): number | null {
    return this.asks.bestLevel?.price ?? null;
  }

  checkConsistency(): void {
    this.bids.checkConsistency();
    this.asks.checkConsistency();
    const bid = this.bestBid;
    const ask = this.bestAsk;
    if (bid !== null && ask !== null && bid >= ask) throw new Error(`book ${this.market} is crossed: ${bid} >= ${ask}`);
  }
}
