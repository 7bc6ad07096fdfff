// The order book of one market, built like a matching engine's: price levels found by price in a hash
// map, kept in price order in a set of sorted blocks (orders/price-set.ts: O(log L) to find where a
// level appears, at most a block's numbers moved when it appears or goes) and linked to their
// neighbours, so matching walks from the best level backwards without a search; each level a FIFO of
// orders linked through their slots, so a cancel or amend by id never walks a level. Orders and levels
// are slots of flat stores (orders/), not objects.
import type { Side } from '../events/types.ts';
import type { LevelStore } from './orders/level-store.ts';
import { NONE, type OrderRecord, type OrderStore } from './orders/order-store.ts';
import { PriceSet } from './orders/price-set.ts';

/** A price level as reads see it: its price, total quantity, order count and first order in the queue. */
export interface PriceLevelView {
  readonly price: number;
  readonly total: number;
  readonly count: number;
  readonly head: OrderRecord | null;
}

/** One side of a book. Bids are best at the highest price, asks at the lowest. */
export class BookSide {
  readonly side: Side;
  private readonly buy: boolean;
  private readonly orders: OrderStore;
  private readonly levels: LevelStore;
  private readonly byPrice = new Map<number, number>();
  private readonly sorted = new PriceSet();
  /** The best level, or NONE. */
  best = NONE;
  orderCount = 0;

  constructor(side: Side, orders: OrderStore, levels: LevelStore) {
    this.side = side;
    this.buy = side === 'BUY';
    this.orders = orders;
    this.levels = levels;
  }

  /** The price of the best level, or null. */
  get bestPrice(): number | null {
    return this.best === NONE ? null : this.levels.price(this.best);
  }

  /** The next level towards the back of the book, or NONE. */
  levelAfter(level: number): number {
    return this.levels.worse(level);
  }

  /** Appends the order in `slot` at the back of its price level's queue. */
  push(slot: number): void {
    const orders = this.orders;
    const levels = this.levels;
    const price = orders.price(slot);
    let level = this.byPrice.get(price);
    if (level === undefined) level = this.addLevel(price);
    const tail = levels.tail(level);
    orders.setLinks(slot, level, tail, NONE);
    if (tail === NONE) levels.setHead(level, slot);
    else orders.setNext(tail, slot);
    levels.setTail(level, slot);
    levels.addCount(level, 1);
    levels.addTotal(level, orders.remaining(slot));
    this.orderCount++;
  }

  /** Unlinks an order in O(1) (plus O(log L) when its level empties). */
  remove(slot: number): void {
    const orders = this.orders;
    const levels = this.levels;
    const level = orders.level(slot);
    if (level === NONE) throw new Error(`order ${orders.id(slot)} is not in the book`);
    const prev = orders.prev(slot);
    const next = orders.next(slot);
    if (prev === NONE) levels.setHead(level, next);
    else orders.setNext(prev, next);
    if (next === NONE) levels.setTail(level, prev);
    else orders.setPrev(next, prev);
    levels.addCount(level, -1);
    levels.addTotal(level, -orders.remaining(slot));
    orders.setLinks(slot, NONE, NONE, NONE);
    this.orderCount--;
    if (levels.count(level) === 0) this.removeLevel(level);
  }

  /** Lowers a resting order's remaining in place; it keeps its place in the queue. */
  reduce(slot: number, remaining: number): void {
    const level = this.orders.level(slot);
    if (level === NONE) throw new Error(`order ${this.orders.id(slot)} is not in the book`);
    this.levels.addTotal(level, remaining - this.orders.remaining(slot));
    this.orders.setRemaining(slot, remaining);
  }

  /** Level slots, best first. */
  *levelSlots(): IterableIterator<number> {
    for (let level = this.best; level !== NONE; level = this.levels.worse(level)) yield level;
  }

  /** Levels best first, as read-only views (for reads and tests; the engine walks slots). */
  *levelsBestFirst(): IterableIterator<PriceLevelView> {
    for (const level of this.levelSlots()) yield this.view(level);
  }

  /** The best level as a view, or null. */
  get bestLevel(): PriceLevelView | null {
    return this.best === NONE ? null : this.view(this.best);
  }

  private view(level: number): PriceLevelView {
    const head = this.levels.head(level);
    return { price: this.levels.price(level), total: this.levels.total(level), count: this.levels.count(level), head: head === NONE ? null : this.orders.record(head) };
  }

  /** Order slots best price first, FIFO within a price. */
  *orderSlots(): IterableIterator<number> {
    for (let level = this.best; level !== NONE; level = this.levels.worse(level)) {
      for (let slot = this.levels.head(level); slot !== NONE; slot = this.orders.next(slot)) yield slot;
    }
  }

  private isBetter(price: number, than: number): boolean {
    return this.buy ? price > than : price < than;
  }

  private addLevel(price: number): number {
    const levels = this.levels;
    // The nearest level better than this price, if any: the new level goes right behind it.
    let better = NONE;
    if (this.best !== NONE && !this.isBetter(price, levels.price(this.best))) {
      const key = this.buy ? this.sorted.above(price) : this.sorted.below(price);
      better = Number.isNaN(key) ? NONE : (this.byPrice.get(key) as number);
    }
    // The price set first: it is the one that refuses (a price that is not finite), before anything
    // else has changed.
    this.sorted.add(price);
    const level = levels.alloc(price);
    const worse = better === NONE ? this.best : levels.worse(better);
    levels.setBetter(level, better);
    levels.setWorse(level, worse);
    if (better === NONE) this.best = level;
    else levels.setWorse(better, level);
    if (worse !== NONE) levels.setBetter(worse, level);
    this.byPrice.set(price, level);
    return level;
  }

  private removeLevel(level: number): void {
    const levels = this.levels;
    const better = levels.better(level);
    const worse = levels.worse(level);
    if (better === NONE) this.best = worse;
    else levels.setWorse(better, worse);
    if (worse !== NONE) levels.setBetter(worse, better);
    const price = levels.price(level);
    this.byPrice.delete(price);
    this.sorted.delete(price);
    levels.release(level);
  }

  /** Throws if any structural invariant is broken; used after every step in tests. */
  checkConsistency(): void {
    const orders = this.orders;
    const levels = this.levels;
    let previous: number | null = null;
    let orderTotal = 0;
    let levelTotal = 0;
    let back = NONE;
    for (const level of this.levelSlots()) {
      const price = levels.price(level);
      if (levels.better(level) !== back) throw new Error(`${this.side} level ${price}: broken link towards the best`);
      back = level;
      if (previous !== null && !this.isBetter(previous, price)) throw new Error(`${this.side} levels out of order at ${price}`);
      previous = price;
      if (this.byPrice.get(price) !== level || !this.sorted.has(price)) throw new Error(`${this.side} level ${price} missing from the price index`);
      let count = 0;
      let total = 0;
      let prev = NONE;
      for (let slot = levels.head(level); slot !== NONE; slot = orders.next(slot)) {
        const id = orders.id(slot);
        if (orders.prev(slot) !== prev) throw new Error(`broken prev link at order ${id}`);
        if (orders.level(slot) !== level) throw new Error(`order ${id} points at the wrong level`);
        if (orders.price(slot) !== price || orders.side(slot) !== this.side) throw new Error(`order ${id} on the wrong level or side`);
        if (!(orders.remaining(slot) > 0)) throw new Error(`order ${id} rests with remaining ${orders.remaining(slot)}`);
        if (!orders.isOpen(slot)) throw new Error(`order ${id} rests with status ${orders.status(slot)}`);
        count++;
        total += orders.remaining(slot);
        prev = slot;
      }
      if (levels.tail(level) !== prev) throw new Error(`level ${price} tail is not its last order`);
      if (count === 0) throw new Error(`empty level ${price} kept`);
      if (count !== levels.count(level) || total !== levels.total(level)) throw new Error(`level ${price} totals are wrong`);
      orderTotal += count;
      levelTotal++;
    }
    if (orderTotal !== this.orderCount) throw new Error(`${this.side} order count ${this.orderCount} but ${orderTotal} linked`);
    if (levelTotal !== this.byPrice.size || levelTotal !== this.sorted.size) throw new Error(`${this.side} has ${levelTotal} linked levels, ${this.byPrice.size} by price, ${this.sorted.size} sorted`);
    const bestKey = this.buy ? this.sorted.max : this.sorted.min;
    if ((Number.isNaN(bestKey) ? NONE : this.byPrice.get(bestKey)) !== this.best) throw new Error(`${this.side} best level cache is stale`);
  }
}

export class OrderBook {
  readonly market: string;
  readonly bids: BookSide;
  readonly asks: BookSide;

  constructor(market: string, orders: OrderStore, levels: LevelStore) {
    this.market = market;
    this.bids = new BookSide('BUY', orders, levels);
    this.asks = new BookSide('SELL', orders, levels);
  }

  sideOf(side: Side): BookSide {
    return side === 'BUY' ? this.bids : this.asks;
  }

  get orderCount(): number {
    return this.bids.orderCount + this.asks.orderCount;
  }

  get bestBid(): number | null {
    return this.bids.bestPrice;
  }

  get bestAsk(): number | null {
    return this.asks.bestPrice;
  }

  checkConsistency(): void {
    this.bids.checkConsistency();
    this.asks.checkConsistency();
    const bid = this.bestBid;
    const ask = this.bestAsk;
    if (bid !== null && ask !== null && bid >= ask) throw new Error(`book ${this.market} is crossed: ${bid} >= ${ask}`);
  }
}
