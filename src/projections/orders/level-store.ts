// Price levels, pooled: one slot per live level of any book, with the head and tail of its FIFO of
// orders (slots of the OrderStore), its order count and total quantity, and its neighbours in price
// order on its side of the book (towards the best and towards the back), side by side in two typed
// arrays. Levels come and go all the time near the top of a book, so a freed slot is reused; nothing is
// allocated per level.
import { column, grown } from '../../events/grown.ts';
import { NONE } from './order-store.ts';

// The layout of a level: NUMS doubles, INTS integers.
const NUMS = 2;
const PRICE = 0;
const TOTAL = 1;
const INTS = 8;
const HEAD = 0;
const TAIL = 1;
const COUNT = 2;
const WORSE = 3;
const BETTER = 4;

export class LevelStore {
  private capacity = 0;
  private used = 0;
  /** Freed slots, linked through `worse`. */
  private free = NONE;
  private num = column(Float64Array);
  private int = column(Int32Array);

  alloc(price: number): number {
    let level = this.free;
    if (level !== NONE) this.free = this.worse(level);
    else {
      if (this.used === this.capacity) this.grow();
      level = this.used++;
    }
    this.num[level * NUMS + PRICE] = price;
    this.num[level * NUMS + TOTAL] = 0;
    const i = level * INTS;
    this.int[i + HEAD] = NONE;
    this.int[i + TAIL] = NONE;
    this.int[i + COUNT] = 0;
    this.int[i + WORSE] = NONE;
    this.int[i + BETTER] = NONE;
    return level;
  }

  release(level: number): void {
    const i = level * INTS;
    this.int[i + COUNT] = 0;
    this.int[i + WORSE] = this.free;
    this.int[i + BETTER] = NONE;
    this.free = level;
  }

  price(level: number): number {
    return this.num[level * NUMS + PRICE] as number;
  }
  /** Sum of the remaining of the level's orders. */
  total(level: number): number {
    return this.num[level * NUMS + TOTAL] as number;
  }
  addTotal(level: number, quantity: number): void {
    this.num[level * NUMS + TOTAL] = (this.num[level * NUMS + TOTAL] as number) + quantity;
  }
  /** First and last order of the level's FIFO (order slots), NONE when empty. */
  head(level: number): number {
    return this.int[level * INTS + HEAD] as number;
  }
  tail(level: number): number {
    return this.int[level * INTS + TAIL] as number;
  }
  setHead(level: number, slot: number): void {
    this.int[level * INTS + HEAD] = slot;
  }
  setTail(level: number, slot: number): void {
    this.int[level * INTS + TAIL] = slot;
  }
  count(level: number): number {
    return this.int[level * INTS + COUNT] as number;
  }
  addCount(level: number, n: number): void {
    this.int[level * INTS + COUNT] = (this.int[level * INTS + COUNT] as number) + n;
  }
  /** The next level towards the back of the book (lower bids, higher asks), and towards the best. */
  worse(level: number): number {
    return this.int[level * INTS + WORSE] as number;
  }
  better(level: number): number {
    return this.int[level * INTS + BETTER] as number;
  }
  setWorse(level: number, worse: number): void {
    this.int[level * INTS + WORSE] = worse;
  }
  setBetter(level: number, better: number): void {
    this.int[level * INTS + BETTER] = better;
  }

  private grow(): void {
    const n = Math.max(256, this.capacity * 2);
    this.num = grown(this.num, n * NUMS);
    this.int = grown(this.int, n * INTS);
    this.capacity = n;
  }
}
