// The prices of one side of a book, in order: what a new price level needs to find its neighbour (the
// nearest existing price on its better side) when it is not the best.
//
// Why not a general B+ tree (sorted-btree, which this replaces in the book): a level appears or goes with
// most resting orders and most fills that empty a level, and the library's generic tree cost ~0.4 µs to
// add a key, ~0.45 µs to delete one (through its range editor) and 0.16-0.24 µs to find a neighbour in a
// side of 2,000 levels (scratch loop, 2026-11-26, 6ecccdc): a third of what a resting order costs
// the whole engine. Here the prices sit in sorted blocks of at most BLOCK numbers in Float64Arrays,
// found by a binary search over each block's first price: an insert or delete moves at most a block's
// numbers (one native copyWithin), a neighbour is two binary searches. A full block splits in two; a
// block that a delete leaves under a quarter full is merged with a neighbour that has room, so blocks
// hold about an eighth of a block or more on average even in the worst order of adds and deletes, and the
// directory (three plain arrays, spliced when a block comes or goes: O(L / BLOCK) then) stays small: a
// side of 100,000 levels has a few thousand blocks.
//
// Prices are finite numbers (the book's); NaN is this set's "none".

const BLOCK = 64;

export class PriceSet {
  private readonly capacity: number;
  /** Sorted blocks, ascending; every block holds at least one price, but for a lone empty first block. */
  private blocks: Float64Array[] = [];
  private counts: number[] = [];
  /** The first (lowest) price of each block, for the search over blocks. */
  private firsts: number[] = [];
  private total = 0;

  /**
   * `blockSize` is for tests, which make blocks small to cross their edges; the book takes the default.
   * At least 8, so that a block can run under a quarter full without being empty, and merge.
   */
  constructor(blockSize = BLOCK) {
    if (!(Number.isInteger(blockSize) && blockSize >= 8)) throw new RangeError(`price set: a block holds at least 8 prices, not ${blockSize}`);
    this.capacity = blockSize;
  }

  get size(): number {
    return this.total;
  }

  /** Blocks in use (tests hold that merging keeps them few). */
  get blockCount(): number {
    return this.blocks.length;
  }

  /** The lowest price, or NaN. */
  get min(): number {
    return this.total === 0 ? Number.NaN : (this.firsts[0] as number);
  }

  /** The highest price, or NaN. */
  get max(): number {
    if (this.total === 0) return Number.NaN;
    const last = this.blocks.length - 1;
    return (this.blocks[last] as Float64Array)[(this.counts[last] as number) - 1] as number;
  }

  has(price: number): boolean {
    if (this.total === 0) return false;
    const b = this.blockOf(price);
    const at = lowerBound(this.blocks[b] as Float64Array, this.counts[b] as number, price);
    return at < (this.counts[b] as number) && (this.blocks[b] as Float64Array)[at] === price;
  }

  /** The lowest price above `price`, or NaN (`price` is a number, not NaN). */
  above(price: number): number {
    if (this.total === 0) return Number.NaN;
    const b = this.blockOf(price);
    const block = this.blocks[b] as Float64Array;
    const count = this.counts[b] as number;
    const at = upperBound(block, count, price);
    if (at < count) return block[at] as number;
    return b + 1 < this.blocks.length ? (this.firsts[b + 1] as number) : Number.NaN;
  }

  /** The highest price below `price`, or NaN (`price` is a number, not NaN). */
  below(price: number): number {
    if (this.total === 0) return Number.NaN;
    let b = this.blockOf(price);
    let at = lowerBound(this.blocks[b] as Float64Array, this.counts[b] as number, price);
    // Everything in this block is at or above the price: the answer is the end of the block before.
    if (at === 0) {
      if (b === 0) return Number.NaN;
      b--;
      at = this.counts[b] as number;
    }
    return (this.blocks[b] as Float64Array)[at - 1] as number;
  }

  /** Adds a price that is not in the set; throws, changing nothing, for one that is or is not finite. */
  add(price: number): void {
    if (!Number.isFinite(price)) throw new RangeError(`price set: ${price} is not a finite price`);
    if (this.blocks.length === 0) {
      this.blocks.push(new Float64Array(this.capacity));
      this.counts.push(0);
      this.firsts.push(price);
    }
    let b = this.blockOf(price);
    let block = this.blocks[b] as Float64Array;
    let count = this.counts[b] as number;
    let at = lowerBound(block, count, price);
    if (at < count && block[at] === price) throw new Error(`price set: ${price} is already in the set`);
    if (count === this.capacity) {
      // Split: the upper half moves to a new block right after this one.
      const half = count >>> 1;
      const upper = new Float64Array(this.capacity);
      upper.set(block.subarray(half, count));
      this.blocks.splice(b + 1, 0, upper);
      this.counts.splice(b + 1, 0, count - half);
      this.firsts.splice(b + 1, 0, upper[0] as number);
      this.counts[b] = half;
      if (at > half) {
        b++;
        block = upper;
        at -= half;
        count -= half;
      } else count = half;
    }
    block.copyWithin(at + 1, at, count);
    block[at] = price;
    this.counts[b] = count + 1;
    if (at === 0) this.firsts[b] = price;
    this.total++;
  }

  /** Removes a price that is in the set; throws, changing nothing, for one that is not. */
  delete(price: number): void {
    const b = this.total === 0 ? -1 : this.blockOf(price);
    const block = b < 0 ? null : (this.blocks[b] as Float64Array);
    const count = b < 0 ? 0 : (this.counts[b] as number);
    const at = block === null ? 0 : lowerBound(block, count, price);
    if (block === null || at === count || block[at] !== price) throw new Error(`price set: ${price} is not in the set`);
    block.copyWithin(at, at + 1, count);
    this.counts[b] = count - 1;
    this.total--;
    if (count - 1 === 0) {
      // An empty block goes, but the last one, which stays for the next price.
      if (this.blocks.length > 1) this.removeBlock(b);
      return;
    }
    if (at === 0) this.firsts[b] = block[0] as number;
    if (count - 1 < this.capacity >>> 2) this.mergeAround(b);
  }

  /** Every price, ascending. */
  *values(): IterableIterator<number> {
    for (let b = 0; b < this.blocks.length; b++) {
      const block = this.blocks[b] as Float64Array;
      for (let i = 0; i < (this.counts[b] as number); i++) yield block[i] as number;
    }
  }

  /** Every price, descending. */
  *descending(): IterableIterator<number> {
    for (let b = this.blocks.length - 1; b >= 0; b--) {
      const block = this.blocks[b] as Float64Array;
      for (let i = (this.counts[b] as number) - 1; i >= 0; i--) yield block[i] as number;
    }
  }

  clear(): void {
    this.blocks = [];
    this.counts = [];
    this.firsts = [];
    this.total = 0;
  }

  /** The block whose range holds `price`: the last block whose first price is at or below it, else the first. */
  private blockOf(price: number): number {
    const firsts = this.firsts;
    let lo = 0;
    let hi = firsts.length - 1;
    if (hi === 0 || price < (firsts[1] as number)) return 0;
    // Invariant: firsts[lo] <= price (or lo = 0); the answer is in [lo, hi].
    lo = 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((firsts[mid] as number) <= price) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Merges a low block into the neighbour with room for it, if either has. */
  private mergeAround(b: number): void {
    const count = this.counts[b] as number;
    const half = this.capacity >>> 1;
    if (b + 1 < this.blocks.length && count + (this.counts[b + 1] as number) <= half) this.merge(b);
    else if (b > 0 && count + (this.counts[b - 1] as number) <= half) this.merge(b - 1);
  }

  /** Appends block b + 1 to block b and removes it. */
  private merge(b: number): void {
    const into = this.blocks[b] as Float64Array;
    const count = this.counts[b] as number;
    into.set((this.blocks[b + 1] as Float64Array).subarray(0, this.counts[b + 1] as number), count);
    this.counts[b] = count + (this.counts[b + 1] as number);
    this.removeBlock(b + 1);
  }

  private removeBlock(b: number): void {
    this.blocks.splice(b, 1);
    this.counts.splice(b, 1);
    this.firsts.splice(b, 1);
  }
}

/** The first index in block[0, count) whose price is at or above `price` (count if none). */
function lowerBound(block: Float64Array, count: number, price: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((block[mid] as number) < price) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in block[0, count) whose price is above `price` (count if none). */
function upperBound(block: Float64Array, count: number, price: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((block[mid] as number) <= price) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
