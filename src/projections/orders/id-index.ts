// The index of resting orders by id: an open-addressing hash table in one Int32Array, each entry the
// id's hash and the order's slot side by side, probed linearly. Every cancel, amend and fill looks an
// order up by id and tens of thousands of orders rest at once, so this is the engine's hottest structure.
// A Map of string keys spreads an entry over several objects and costs a cache miss or three per
// operation at that size; here a probe reads one cache line and touches the order's id (to confirm the
// match) only when the hash matches. Deletion shifts the probe run back, so there are no tombstones and
// no periodic rehash.
//
// Growth is incremental: a table past half full gets one twice the size, and the entries move over a
// few at a time, with each add and remove after it, instead of all at once. Rehashing a million resting
// orders in one go held the command that crossed 2^20 of them for 36 ms (bench:engine's 1M run); spread
// out, each add or remove moves at most MOVES_PER_OP old entries while the move lasts. Until every entry
// has moved, a lookup that misses in the new table looks in the old one; an entry leaves the old table
// as a tombstone (never a hole), so the probe runs of those still there stay whole.
//
// Order ids are made by the server (random UUIDs), never chosen by a client, so the hash needs no
// protection against crafted collisions.

import { idHash } from '../../events/id-hash.ts';

const MIN_ENTRIES = 1024;
/**
 * Old-table positions moved per add or remove while the table grows. A growth starts at half full (E/2
 * entries in E positions) into 2E positions, and the next one is due at E entries, at least E/2 adds
 * later; at 8 positions an operation the E old positions are done in E/8: long before.
 */
const MOVES_PER_OP = 8;
/** An old-table entry that has moved (or was removed while the table grew). */
const MOVED = -1;

export class IdIndex {
  /** Per entry: [hash, slot + 1]; slot + 1 of 0 marks an empty entry. */
  private table = new Int32Array(MIN_ENTRIES * 2);
  private mask = MIN_ENTRIES - 1;
  private count = 0;
  /** While the table grows: the one before, whose entries from `cursor` on have not moved yet (see above). */
  private old: Int32Array | null = null;
  private oldMask = 0;
  private cursor = 0;
  /** Each slot's id (the order store's column, which it replaces as it grows), to confirm a match. */
  private readonly keys: { id(slot: number): string };

  constructor(keys: { id(slot: number): string }) {
    this.keys = keys;
  }

  get size(): number {
    return this.count;
  }

  /** Whether entries are still moving from the previous, smaller table. */
  get growing(): boolean {
    return this.old !== null;
  }

  /** The slot of `id`, or -1. `hash` is idHash(id). */
  get(id: string, hash: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i + 1] as number;
      if (entry === 0) return this.old === null ? -1 : this.oldGet(id, hash);
      if (table[2 * i] === hash && this.keys.id(entry - 1) === id) return entry - 1;
    }
  }

  /** Adds a slot whose id (hashing to `hash`) is not in the index. */
  add(slot: number, hash: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    else if (this.old !== null) this.move();
    this.place(hash, slot + 1);
    this.count++;
  }

  /** Removes a slot that is in the index under `hash`. */
  remove(slot: number, hash: number): void {
    if (this.old !== null) {
      // Moving first settles where the entry is; one that has not moved yet is left as a tombstone.
      this.move();
      if (this.oldRemove(slot, hash)) {
        this.count--;
        return;
      }
    }
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
    this.old = null;
  }

  private place(hash: number, entry: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
    table[2 * i] = hash;
    table[2 * i + 1] = entry;
  }

  // A table twice the size; the entries move to it over the next operations (move). A growth still
  // under way is finished first (the arithmetic at MOVES_PER_OP says it never is).
  private grow(): void {
    if (this.old !== null) this.move(Number.POSITIVE_INFINITY);
    const entries = (this.mask + 1) * 2;
    this.old = this.table;
    this.oldMask = this.mask;
    this.cursor = 0;
    this.table = new Int32Array(entries * 2);
    this.mask = entries - 1;
    this.move();
  }

  /** Moves the old table's next `positions` positions' entries to the new one; drops the old table when done. */
  private move(positions = MOVES_PER_OP): void {
    const old = this.old as Int32Array;
    const end = Math.min(this.oldMask + 1, this.cursor + positions);
    for (let i = this.cursor; i < end; i++) {
      const entry = old[2 * i + 1] as number;
      if (entry > 0) {
        this.place(old[2 * i] as number, entry);
        old[2 * i + 1] = MOVED;
      }
    }
    this.cursor = end;
    if (end === this.oldMask + 1) this.old = null;
  }

  private oldGet(id: string, hash: number): number {
    const old = this.old as Int32Array;
    const mask = this.oldMask;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = old[2 * i + 1] as number;
      if (entry === 0) return -1;
      if (entry > 0 && old[2 * i] === hash && this.keys.id(entry - 1) === id) return entry - 1;
    }
  }

  /** Removes the slot from the old table if it is still there (leaving a tombstone); whether it was. */
  private oldRemove(slot: number, hash: number): boolean {
    const old = this.old;
    if (old === null) return false;
    const mask = this.oldMask;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = old[2 * i + 1] as number;
      if (entry === 0) return false;
      if (entry === slot + 1) {
        old[2 * i + 1] = MOVED;
        return true;
      }
    }
  }
}
