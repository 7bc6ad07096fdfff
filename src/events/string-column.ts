// A column of strings for flat stores, in fixed chunks: it grows by adding a chunk, never by copying what
// it holds (copying millions of references, each store through the garbage collector's write barrier,
// stalled the engine for tens of milliseconds at every doubling). A chunk holds 65,536 references, which
// puts it straight in the collector's large-object space: a smaller one would be born young and copied
// by every scavenge until promoted.
const SHIFT = 16;
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

export class StringColumn<T extends string | null> {
  private readonly chunks: T[][] = [];
  private readonly empty: T;
  /** One past the highest index set since the last clear: what clear() must blank. */
  private high = 0;

  constructor(empty: T) {
    this.empty = empty;
  }

  get(i: number): T {
    return (this.chunks[i >>> SHIFT] as T[])[i & MASK] as T;
  }

  set(i: number, value: T): void {
    let chunk = this.chunks[i >>> SHIFT];
    if (chunk === undefined) {
      chunk = new Array<T>(CHUNK).fill(this.empty);
      this.chunks[i >>> SHIFT] = chunk;
    }
    chunk[i & MASK] = value;
    if (i >= this.high) this.high = i + 1;
  }

  /**
   * Drops every string. The chunks stay, blanked where they were written: a reset is followed by new
   * orders, and allocating and filling fresh 65,536-entry chunks after every reset was 9% of the
   * recovery of a log with frequent resets.
   */
  clear(): void {
    for (let c = 0; c * CHUNK < this.high; c++) this.chunks[c]?.fill(this.empty, 0, Math.min(CHUNK, this.high - c * CHUNK));
    this.high = 0;
  }
}
