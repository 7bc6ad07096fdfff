// Strings the engine builds for clients (times, fill ids, the rate-limit member of a frame) must be flat.
// `+` and template literals make a rope (a ConsString) of anything 13 characters or longer, and
// JSON.stringify of an object holding a rope leaves V8's fast path (2-3x slower for an order view);
// Array.prototype.join builds a flat string but costs 0.15-0.2 µs of generic machinery for three to
// seven pieces. trim flattens its receiver (in place) before it looks at either end, and a string that
// neither starts nor ends with white space is its own trim: the same text, flat, for about half of
// join's time (bench: scratch measurements in docs/benchmarks.md, Engine, stop 30).

/** The first code unit of a text `flat` keeps whole: printable ASCII, never white space. */
export function visibleAscii(code: number): boolean {
  return code > 32 && code < 127;
}

/**
 * `text` flattened. The caller guarantees it neither starts nor ends with white space (in the sense of
 * String.prototype.trim: ASCII and Unicode spaces and line terminators): its first and last code units
 * are printable ASCII (visibleAscii), as every text the callers build is by construction.
 */
export function flat(text: string): string {
  return text.trim();
}
