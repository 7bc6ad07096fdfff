// A column of strings for flat stores, in fixed chunks: it grows by adding a chunk, never by copying what
// it holds (copying millions of references, each store through the garbage collector's write barrier,
// stalled the engine for tens of milliseconds at every doubling). A chunk holds 65,536 references, which
// puts it straight in the collector's large-object space: a smaller one would be born young and copied
// by every scavenge until promoted.
const SHIFT = 16;
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

export class StringColumn<T extends string | null> {
  private chunks: T[][] = [];
  private readonly empty: T;

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
  }

  /** Drops every string. */
  clear(): void {
    this.chunks = [];
  }
}
