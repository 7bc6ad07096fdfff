// Numbers of a flat store, `stride` per slot, kept on the V8 heap in chunks of 16,384 slots.
//
// Why not typed arrays: their memory is external to the V8 heap, and V8 starts a full mark-compact
// whenever external memory has grown by 64 MiB since the last one. The order store's typed columns (80
// B an order) grew by that much every ~800,000 orders, and at once at each doubling, and each of those
// collections marks the whole heap (85-146 ms of pause at a million resting orders; V8's
// `--trace-incremental-marking` says it started for "external memory pressure"). An
// array of doubles on the heap counts towards the old generation instead, whose limit V8 sets from
// how fast the program allocates and collects (up to four times the live heap), and marking it costs
// nothing: a double array holds no references to trace.
//
// Why chunks: growing one array copies everything it holds (tens of megabytes for a million orders,
// stalling the engine at each doubling); a new chunk copies nothing, and chunks are added one at a
// time. The first chunk starts small and doubles until it is full size, so the thousands of small
// exchanges of a test run stay small.
//
// Why 16,384 slots: a new chunk's memory is all touched at once, by the command that needs it (the blank
// copied in, every page of it faulted in fresh). At 65,536 slots that was 3-4 MiB a column, the order
// store's two and the log's together ~8 MiB, and it held that one command for 12-15 ms (bench:engine's
// slowest command at 1k resting; 2.9-4.2 ms at 16,384, a collection). Smaller chunks make more such
// commands, each shorter: at 8,192 slots bench:engine's p99.9 rose by a few µs (by the chunk count, some
// 80 of its 300 slowest commands were then chunks being added). 16,384 slots of the narrowest stride
// (4 doubles, 512 KiB) are well past V8's largest regular object, so a chunk is born in the
// large-object space and never copied by a scavenge.
const SHIFT = 14;
const SLOTS = 1 << SHIFT;
/** Slots per chunk past the first (tests cross its edges). */
export const CHUNK_SLOTS = SLOTS;
const MASK = SLOTS - 1;
const FIRST_SLOTS = 1024;

/**
 * An array of `length` zeros that V8 keeps as unboxed doubles (PACKED_DOUBLE_ELEMENTS): no reference
 * for the collector to trace, and integers stored into it stay doubles. It starts from a double literal
 * and doubles by concat (a copy of memory; half the time of a push per element); `new Array(n).fill(x)`
 * would not do (V8 makes that an array of tagged small integers, whose every slot the marker visits,
 * and which changes kind, copying itself, at the first number that is not a small integer).
 */
function doubles(length: number): number[] {
  let a = [0.5];
  a[0] = 0;
  while (a.length * 2 <= length) a = a.concat(a);
  return a.length < length ? a.concat(a.slice(0, length - a.length)) : a;
}

// A full chunk of zeros per length, copied for each new chunk: one allocation of the final size and a
// copy of memory, ~1.2-1.6 ms a chunk at a million orders, where building each chunk element by element
// took about twice that (timed inside bench:engine's 1M run).
const blankChunks = new Map<number, number[]>();

function blankChunk(length: number): number[] {
  let blank = blankChunks.get(length);
  if (blank === undefined) {
    blank = doubles(length);
    blankChunks.set(length, blank);
  }
  return blank.slice();
}

export class SlotColumn {
  private readonly stride: number;
  private readonly chunks: number[][] = [];
  private room = 0;

  constructor(stride: number) {
    this.stride = stride;
  }

  /** Slots there is room for. */
  get capacity(): number {
    return this.room;
  }

  /**
   * Makes room for slots [0, slots). New slots hold zeros. Past the first chunk, room grows by whole
   * chunks: a store that asks for one more slot than it has gets one chunk, not a doubling.
   */
  reserve(slots: number): void {
    while (this.room < slots) {
      if (this.room < SLOTS) {
        // The first chunk: doubled (copied) while it is smaller than a full chunk. concat makes the
        // doubled array in one allocation, with the old values copied as memory, and fill zeroes the new
        // half in place (both keep the array's unboxed doubles). A fresh array of zeros with the old values
        // copied in element by element allocated twice as much (doubles() builds by concat) and touched
        // 1.75x the pages: 37 ms against 20 ms for a first chunk of stride 8 on a machine where each
        // fresh page costs ~12 µs (docs/benchmarks.md, Method, "The machine").
        const old = this.chunks[0];
        if (old === undefined) {
          this.chunks[0] = doubles(FIRST_SLOTS * this.stride);
          this.room = FIRST_SLOTS;
        } else {
          const bigger = old.concat(old);
          bigger.fill(0, old.length);
          this.chunks[0] = bigger;
          this.room *= 2;
        }
      } else {
        this.chunks.push(blankChunk(SLOTS * this.stride));
        this.room += SLOTS;
      }
    }
  }

  /** The chunk holding `slot`: its fields start at offset(slot). */
  chunk(slot: number): number[] {
    return this.chunks[slot >>> SHIFT] as number[];
  }

  offset(slot: number): number {
    return (slot & MASK) * this.stride;
  }

  get(slot: number, field: number): number {
    return (this.chunks[slot >>> SHIFT] as number[])[(slot & MASK) * this.stride + field] as number;
  }

  set(slot: number, field: number, value: number): void {
    (this.chunks[slot >>> SHIFT] as number[])[(slot & MASK) * this.stride + field] = value;
  }
}
