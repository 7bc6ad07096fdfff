// Which client order ids the history may hold: a Bloom filter over (trader, client order id) of every
// order finished since the last reset. A submission with a client order id the books do not hold asks
// it first: "no" is certain (a new id, nearly every submission's case), so only a "maybe" costs a query
// of the history. Its size is fixed, so its memory does not grow with the orders; past some tens of
// millions of ids it says "maybe" more often, and more submissions ask the database (correct, slower).
// A false "maybe" costs one indexed query; client order ids are chosen by clients, so a trader who
// crafts ids that collide slows only their own submissions.

/** 2^26 bits: 8 MiB; at five million ids about one "maybe" in 230 is false (four probes). */
export const FILTER_BITS = 1 << 26;
const PROBES = 4;

/** FNV-1a over every code unit of the trader id, a separator and the client order id, from `seed`. */
function hash(traderId: string, clientOrderId: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < traderId.length; i++) h = Math.imul(h ^ traderId.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0xffff, 0x01000193);
  for (let i = 0; i < clientOrderId.length; i++) h = Math.imul(h ^ clientOrderId.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 13)) >>> 0;
}

export class ClientIdFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;
  private added = 0;

  constructor(bits = FILTER_BITS) {
    if (!(Number.isInteger(Math.log2(bits)) && bits >= 64)) throw new Error(`client id filter: ${bits} bits is not a power of two of at least 64`);
    this.bits = new Uint32Array(bits / 32);
    this.mask = bits - 1;
  }

  /** Ids added since the last clear. */
  get size(): number {
    return this.added;
  }

  get bytes(): number {
    return this.bits.byteLength;
  }

  add(traderId: string, clientOrderId: string): void {
    const h1 = hash(traderId, clientOrderId, 0x811c9dc5);
    const h2 = hash(traderId, clientOrderId, 0x2545f491) | 1;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[bit >>> 5] = (this.bits[bit >>> 5] as number) | (1 << (bit & 31));
    }
    this.added++;
  }

  /** false: never added since the last clear; true: maybe. */
  mayHold(traderId: string, clientOrderId: string): boolean {
    const h1 = hash(traderId, clientOrderId, 0x811c9dc5);
    const h2 = hash(traderId, clientOrderId, 0x2545f491) | 1;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      if (((this.bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  clear(): void {
    this.bits.fill(0);
    this.added = 0;
  }
}
