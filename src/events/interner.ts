// Small integer names for strings the engine meets on every command (trader ids, market ids), so the
// per-trader and per-market state can live in arrays indexed by number instead of maps of maps. An index
// is never reused for another string: one lookup per command, then array reads.
export class Interner {
  private readonly indexes = new Map<string, number>();
  private readonly names: string[] = [];
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
    const index = this.indexes.get(name);
    if (index === undefined) return -1;
    this.lastName = name;
    this.lastIndex = index;
    return index;
  }

  /** The index of `name`, interning it if needed. */
  intern(name: string): number {
    if (name === this.lastName) return this.lastIndex;
    let index = this.indexes.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.names.push(name);
      this.indexes.set(name, index);
    }
    this.lastName = name;
    this.lastIndex = index;
    return index;
  }

  nameOf(index: number): string {
    return this.names[index] as string;
  }
}
