// The index of resting orders by id: an open-addressing hash table in one Int32Array, each entry the
// id's hash and the order's slot side by side, probed linearly. Every cancel, amend and fill looks an
// order up by id and tens of thousands of orders rest at once, so this is the engine's hottest structure.
// A Map of string keys spreads an entry over several objects and costs a cache miss or three per
// operation at that size; here a probe reads one cache line and touches the order's id (to confirm the
// match) only when the hash matches. Deletion shifts the probe run back, so there are no tombstones and
// no periodic rehash.
//
// Order ids are made by the server (random UUIDs), never chosen by a client, so the hash needs no
// protection against crafted collisions.

const MIN_ENTRIES = 1024;

/**
 * An FNV-1a-style hash of the id's length and its code units, two per step (16 bits each, so nothing is
 * lost): all of a short id's, and of a long one the first 4 and the last 12 (the server's ids are random
 * UUIDs, whose last 12 hex digits alone are 48 random bits). A hash only picks where probing starts, so
 * an id sharing those with another costs a probe, never a wrong answer.
 */
export function idHash(id: string): number {
  const n = id.length;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  if (n <= 16) {
    let i = 0;
    for (; i + 1 < n; i += 2) h = Math.imul(h ^ (id.charCodeAt(i) | (id.charCodeAt(i + 1) << 16)), 0x01000193);
    if (i < n) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  } else {
    h = Math.imul(h ^ (id.charCodeAt(0) | (id.charCodeAt(1) << 16)), 0x01000193);
    h = Math.imul(h ^ (id.charCodeAt(2) | (id.charCodeAt(3) << 16)), 0x01000193);
    for (let i = n - 12; i < n; i += 2) h = Math.imul(h ^ (id.charCodeAt(i) | (id.charCodeAt(i + 1) << 16)), 0x01000193);
  }
  return h ^ (h >>> 15);
}

export class IdIndex {
  /** Per entry: [hash, slot + 1]; slot + 1 of 0 marks an empty entry. */
  private table = new Int32Array(MIN_ENTRIES * 2);
  private mask = MIN_ENTRIES - 1;
  private count = 0;
  /** Each slot's id (the order store's column, which it replaces as it grows), to confirm a match. */
  private readonly keys: { id(slot: number): string };

  constructor(keys: { id(slot: number): string }) {
    this.keys = keys;
  }

  get size(): number {
    return this.count;
  }

  /** The slot of `id`, or -1. `hash` is idHash(id). */
  get(id: string, hash: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i + 1] as number;
      if (entry === 0) return -1;
      if (table[2 * i] === hash && this.keys.id(entry - 1) === id) return entry - 1;
    }
  }

  /** Adds a slot whose id (hashing to `hash`) is not in the index. */
  add(slot: number, hash: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.resize((this.mask + 1) * 2);
    this.place(hash, slot + 1);
    this.count++;
  }

  /** Removes a slot that is in the index under `hash`. */
  remove(slot: number, hash: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[2 * i + 1] !== slot + 1) {
      if (table[2 * i + 1] === 0) throw new Error(`id index: order ${this.keys.id(slot)} is not indexed`);
      i = (i + 1) & mask;
    }
    // Backward shift: move later entries of the probe run into the hole when their home allows it (when
    // their home is not cyclically within (hole, j]).
    let hole = i;
    for (let j = (hole + 1) & mask; table[2 * j + 1] !== 0; j = (j + 1) & mask) {
      const home = (table[2 * j] as number) & mask;
      if (hole <= j ? home <= hole || home > j : home <= hole && home > j) {
        table[2 * hole] = table[2 * j] as number;
        table[2 * hole + 1] = table[2 * j + 1] as number;
        hole = j;
      }
    }
    table[2 * hole] = 0;
    table[2 * hole + 1] = 0;
    this.count--;
  }

  clear(): void {
    this.table = new Int32Array(MIN_ENTRIES * 2);
    this.mask = MIN_ENTRIES - 1;
    this.count = 0;
  }

  private place(hash: number, entry: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
    table[2 * i] = hash;
    table[2 * i + 1] = entry;
  }

  private resize(entries: number): void {
    const old = this.table;
    this.table = new Int32Array(entries * 2);
    this.mask = entries - 1;
    for (let i = 0; i < old.length; i += 2) {
      const entry = old[i + 1] as number;
      if (entry !== 0) this.place(old[i] as number, entry);
    }
  }
}
