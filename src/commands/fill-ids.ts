// A submitted order makes as many fills as it matches, which is unknown when the server stamps the
// command. So the command carries one random UUID and fill n gets that UUID with its last 48 bits
// advanced by n: unique, still UUID-shaped, and a pure function of the command, so a re-run of the
// same command makes the same ids. Versions and variant bits are left as they were.

const NODE_HEX = 12;
const NODE_SPACE = 2 ** 48;
const HALF = 2 ** 24;

// The seed's last 12 characters as the function below writes them back: lowercase hex.
const LOWER_HEX_TAIL = /[0-9a-f]{12}$/;

/** Each byte as two lowercase hex digits. */
const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The value of a hex digit's code unit (either case), or -1. */
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

export function fillId(seed: string, index: number): string {
  // Most submissions fill once: the first id is the seed itself whenever its tail is already written
  // as the arithmetic below would write it (a server's randomUUID always is).
  if (index === 0 && LOWER_HEX_TAIL.test(seed)) return seed;
  // The tail as two 24-bit halves, read and written digit by digit: parseInt, toString(16) and
  // padStart of a 48-bit double cost ~0.9 µs a fill here against ~0.2 µs for this, and every fill after
  // a submission's first pays it. Only a tail of 12 hex digits takes this way; any other seed (a log
  // from elsewhere) gets the arithmetic as written below, whatever parseInt makes of it.
  const n = seed.length;
  // (An index past 2^32 would be a submission of billions of fills; the arithmetic's doubles are exact below it.)
  if (n < NODE_HEX || !(index >= 0 && index <= 0xffff_ffff && Number.isInteger(index))) return arithmeticFillId(seed, index);
  let hi = 0;
  let lo = 0;
  for (let i = n - NODE_HEX; i < n - 6; i++) {
    const d = hexValue(seed.charCodeAt(i));
    if (d < 0) return arithmeticFillId(seed, index);
    hi = hi * 16 + d;
  }
  for (let i = n - 6; i < n; i++) {
    const d = hexValue(seed.charCodeAt(i));
    if (d < 0) return arithmeticFillId(seed, index);
    lo = lo * 16 + d;
  }
  const sum = lo + index;
  lo = sum % HALF;
  hi = (hi + Math.floor(sum / HALF)) % HALF;
  // Joined into a flat string, not a rope (see timeText in events/time-code.ts): fill ids are sent.
  return [seed.slice(0, n - NODE_HEX), BYTE_HEX[hi >>> 16], BYTE_HEX[(hi >>> 8) & 255], BYTE_HEX[hi & 255], BYTE_HEX[lo >>> 16], BYTE_HEX[(lo >>> 8) & 255], BYTE_HEX[lo & 255]].join('');
}

/** The definition: the tail read as one hex number, advanced by `index` modulo 2^48, written back in 12 digits. */
function arithmeticFillId(seed: string, index: number): string {
  const head = seed.slice(0, seed.length - NODE_HEX);
  const node = Number.parseInt(seed.slice(-NODE_HEX), 16);
  const next = (node + index) % NODE_SPACE;
  return [head, next.toString(16).padStart(NODE_HEX, '0')].join('');
}
