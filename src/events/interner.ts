// Small integer names for strings the engine meets on every command (trader ids, market ids), so the
// per-trader and per-market state can live in arrays indexed by number instead of maps of maps. An index
// is never reused for another string: one lookup per command, then array reads.
//
// The lookup is an open-addressing table of [hash, index + 1] pairs in one Int32Array, probed linearly,
// hashed with idHash (id-hash.ts), rather than a Map: the names arrive as fresh strings (parsed from a
// request body or a log line) every time, and a Map hashes all 36 characters of a fresh trader id before
// it can look: ~60 ns a lookup here against ~30 ns (a scratch loop over JSON-parsed ids). Trader ids are
// UUIDs the server makes and market ids the operator's; nothing an outsider sends is ever interned (an
// outsider's string is only looked up), so the table needs no defence against crafted collisions.
import { idHash } from './id-hash.ts';

const MIN_ENTRIES = 64;

export class Interner {
  private readonly names: string[] = [];
  /** Per entry: [hash, index + 1]; an index + 1 of 0 marks an empty entry. Never more than half full. */
  private table = new Int32Array(MIN_ENTRIES * 2);
  private mask = MIN_ENTRIES - 1;
  // The last name found: decide looks a command's trader and market up, then applying its event does
  // again, with the same strings. Null before the first: no name, the empty one included, may match it
  // (a log from outside can name the market '', which the schema allows).
  private lastName: string | null = null;
  private lastIndex = -1;

  get size(): number {
    return this.names.length;
  }

  /** The index of `name`, or -1 if it was never interned. */
  indexOf(name: string): number {
    if (name === this.lastName) return this.lastIndex;
    const index = this.find(name, idHash(name));
    if (index < 0) return -1;
    this.lastName = name;
    this.lastIndex = index;
    return index;
  }

  /** The index of `name`, interning it if needed. */
  intern(name: string): number {
    if (name === this.lastName) return this.lastIndex;
    const hash = idHash(name);
    let index = this.find(name, hash);
    if (index < 0) {
      index = this.names.length;
      this.names.push(name);
      if (this.names.length * 2 > this.mask + 1) this.grow();
      else this.place(hash, index);
    }
    this.lastName = name;
    this.lastIndex = index;
    return index;
  }

  nameOf(index: number): string {
    return this.names[index] as string;
  }

  private find(name: string, hash: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[i * 2 + 1] as number;
      if (entry === 0) return -1;
      if (table[i * 2] === hash && this.names[entry - 1] === name) return entry - 1;
    }
  }

  private place(hash: number, index: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[i * 2 + 1] !== 0) i = (i + 1) & mask;
    table[i * 2] = hash;
    table[i * 2 + 1] = index + 1;
  }

  /** Twice the entries, every name placed again (names are few: traders and markets, not orders). */
  private grow(): void {
    const entries = (this.mask + 1) * 2;
    this.table = new Int32Array(entries * 2);
    this.mask = entries - 1;
    for (let index = 0; index < this.names.length; index++) this.place(idHash(this.names[index] as string), index);
  }
}
