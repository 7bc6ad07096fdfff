// Admission times as numbers: the microseconds since the epoch of an RFC 3339 UTC time with exactly six
// fractional digits (`2026-11-25T21:43:17.123456Z`, the form the admission clock writes), and back.
//
// Why: every command's time is a string of its own, and the flat stores kept it for as long as they keep
// the order or the event (the order store's created_at, the in-memory log's times): one more live object
// per order and per event, 48 bytes each, and one more for every major collection to mark. A number in a
// column of doubles costs 8 bytes and nothing to mark. The code must give back the very text it was made
// from, so only times in exactly that form are coded, and only those a double holds exactly (within
// Number.MAX_SAFE_INTEGER microseconds of 1970: the years 1685 to 2255); anything else (a log from
// elsewhere may hold other forms) gets NaN, and the store keeps that text as it is.

// Coding sees the clock's second many times in a row (commands arrive in time order): its text up to
// the fraction (`2026-11-25T21:43:17.`) is kept. Writing a time back sees the seconds of whatever orders
// a command touches (makers rested hours apart): a small table of seconds' texts, by second, so that
// neither direction evicts the other's and a busy second's orders find theirs.
let codeSecond = Number.NaN;
let codePrefix = '';
// The last text coded, and its code: the order store and the log code the same command's time.
let lastText = '';
let lastCode = Number.NaN;

const TABLE = 1024;
const textSeconds = new Float64Array(TABLE).fill(Number.NaN);
const textPrefixes: string[] = new Array<string>(TABLE).fill('');

/** `2026-11-25T21:43:17.`: the date and time of a second, as toISOString writes them (four-digit years). */
function prefixOf(second: number): string {
  // Days to a civil date in the proleptic Gregorian calendar (H. Hinnant's days_from_civil, inverted):
  // several times cheaper than a Date and its toISOString.
  const days = Math.floor(second / 86_400);
  let rest = second - days * 86_400;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3600);
  rest -= hour * 3600;
  const minute = Math.floor(rest / 60);
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(rest - minute * 60)}.`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The time's microseconds since the epoch when it is in the canonical form (timeText gives it back), else NaN. */
export function timeCode(text: string): number {
  if (text === lastText) return lastCode;
  if (text.length !== 27 || text.charCodeAt(26) !== 90 /* Z */) return Number.NaN;
  // (A slice and a compare: about half the time of startsWith here.)
  if (text.slice(0, 20) !== codePrefix) {
    if (!CANONICAL.test(text)) return Number.NaN;
    const ms = Date.parse(`${text.slice(0, 19)}Z`);
    if (!Number.isFinite(ms)) return Number.NaN;
    // Date.parse accepts what toISOString would write differently (a 30th of February rolls over):
    // only a second written back exactly as it came is this form.
    const prefix = prefixOf(ms / 1000);
    if (!text.startsWith(prefix)) return Number.NaN;
    codeSecond = ms / 1000;
    codePrefix = prefix;
  }
  let fraction = 0;
  for (let i = 20; i < 26; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    fraction = fraction * 10 + digit;
  }
  const code = codeSecond * 1_000_000 + fraction;
  if (code > Number.MAX_SAFE_INTEGER || code < -Number.MAX_SAFE_INTEGER) return Number.NaN;
  lastText = text;
  lastCode = code;
  return code;
}

/**
 * The canonical text of a time code (RFC 3339 UTC, six fractional digits): any whole number of
 * microseconds a double holds exactly (the years 1685 to 2255), which every code timeCode gives is.
 */
export function timeText(code: number): string {
  // The time just coded is the text it was coded from: no need to write it again. The order store
  // remembers the last time it wrote out itself, which a fill's maker views replace before the taker's
  // own order state is built; this one still holds the taker's (this command's) time. The text is the
  // caller's own string, flat as this function's are (see the join below) because every time the engine
  // codes is: the admission clock's (made by this function) or parsed from JSON (a request, a log line,
  // a database row).
  if (code === lastCode) return lastText;
  if (!Number.isSafeInteger(code)) throw new RangeError(`time code: ${code} is not a whole number of microseconds a double holds exactly`);
  const second = Math.floor(code / 1_000_000);
  const at = second & (TABLE - 1);
  let prefix: string;
  if (textSeconds[at] === second) prefix = textPrefixes[at] as string;
  else {
    prefix = prefixOf(second);
    textSeconds[at] = second;
    textPrefixes[at] = prefix;
  }
  const fraction = code - second * 1_000_000;
  // Joined, not concatenated: `+` and template literals make a rope (a ConsString) of anything this
  // long, and JSON.stringify of an object holding a rope leaves V8's fast path (2-3x slower: 0.73
  // against 0.26 µs for an order view). These texts end up in every order view, fill and event a
  // client is sent, and in the log's canonical JSON; join builds a flat string for 0.03 µs more.
  return [prefix, fraction < 100_000 ? String(fraction).padStart(6, '0') : String(fraction), 'Z'].join('');
}

/**
 * The times of a flat store as codes, with the text of any time that has none (timeCode gave NaN) kept
 * here by the store's key (a slot, an index), so that the store gives back every time as it was given.
 */
export class OddTimes {
  private readonly texts = new Map<number, string>();

  /** The code to store for `text` under `key`; NaN when the text is kept here instead. */
  code(key: number, text: string): number {
    const code = timeCode(text);
    if (Number.isNaN(code)) this.texts.set(key, text);
    return code;
  }

  /** The text of what the store holds under `key`: its code written back, or the text kept here. */
  text(key: number, code: number): string {
    return Number.isNaN(code) ? (this.texts.get(key) as string) : timeText(code);
  }

  /** Forgets what is kept under `key` (its slot was freed). */
  forget(key: number): void {
    if (this.texts.size > 0) this.texts.delete(key);
  }

  clear(): void {
    this.texts.clear();
  }
}
