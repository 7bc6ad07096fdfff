// The hash of the engine's ids (order ids, trader ids, market ids) for its own open-addressing tables
// (the order index, the interner). V8 hashes every character of a string the first time a Map meets
// it, and the ids the engine meets arrive as fresh strings (parsed from a request or a log) every time.
// The ids it makes are random UUIDs, whose last 12 hex digits alone are 48 random bits.

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
