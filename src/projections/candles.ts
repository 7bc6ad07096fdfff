// OHLCV candles of trading-extensions.md: a bucket per interval aligned in UTC, oldest first, empty
// buckets left out. Every interval is a whole number of minutes, so a bucket is made of whole minutes:
// candles are built from minute candles (candle-minutes.ts keeps the current minute of each market as
// live state and hands over every minute it closes to the history) and, for the part of a range that
// does not start or end on a minute, from the trades themselves.
import type { TapeTrade } from './history/trade-tape.ts';
import { timeCode, timeText } from '../events/time-code.ts';

export const CANDLE_INTERVALS = { '1m': 60, '5m': 300, '15m': 900, '1h': 3600, '1d': 86_400 } as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;
export const MAX_CANDLES = 1000;
/** A minute in microseconds: the width of the smallest bucket, which every interval is a multiple of. */
export const MINUTE_MICROS = 60_000_000;

/** What a candle says of its trades: prices first to last and extremes, quantity, count. */
export interface CandleFigures {
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly trades: number;
}

export interface Candle extends CandleFigures {
  /** RFC 3339 start of the bucket. */
  readonly start: string;
}

/** The trades of one market in one minute, in the order they were made. */
export interface MinuteCandle extends CandleFigures {
  readonly market: string;
  /** The minute's start, microseconds since 1970. */
  readonly start: number;
  /** The seq of the minute's first and last trade. */
  readonly first_seq: number;
  readonly last_seq: number;
}

/** Microseconds since the epoch of an RFC 3339 UTC time with up to six fractional digits (NaN if it is not one). */
export function timeMicros(time: string): number {
  const code = timeCode(time);
  if (!Number.isNaN(code)) return code;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/i.exec(time);
  if (m === null) return NaN;
  const seconds = Date.parse(`${m[1]}${m[3] === 'z' ? 'Z' : m[3]}`);
  if (Number.isNaN(seconds)) return NaN;
  return seconds * 1000 + Number((m[2] ?? '').padEnd(6, '0'));
}

/** The RFC 3339 UTC text of a time in microseconds since 1970, with six fractional digits. */
export function microsTime(micros: number): string {
  return timeText(micros);
}

/**
 * Builds the candles of one interval from pieces given in time order: single trades and minute
 * candles. A piece belongs to the bucket holding its start; a minute never straddles two buckets.
 */
export class CandleBuilder {
  private readonly width: number;
  private readonly out: Candle[] = [];
  private start = NaN;
  private open = 0;
  private high = 0;
  private low = 0;
  private close = 0;
  private volume = 0;
  private trades = 0;

  constructor(interval: CandleInterval) {
    this.width = CANDLE_INTERVALS[interval] * 1_000_000;
  }

  trade(at: number, price: number, quantity: number): void {
    this.piece(at, price, price, price, price, quantity, 1);
  }

  minute(m: MinuteCandle): void {
    this.piece(m.start, m.open, m.high, m.low, m.close, m.volume, m.trades);
  }

  candles(): Candle[] {
    this.flush();
    this.start = NaN;
    return this.out;
  }

  private piece(at: number, open: number, high: number, low: number, close: number, volume: number, trades: number): void {
    const start = Math.floor(at / this.width) * this.width;
    if (start !== this.start) {
      this.flush();
      this.start = start;
      this.open = open;
      this.high = high;
      this.low = low;
      this.volume = 0;
      this.trades = 0;
    }
    if (high > this.high) this.high = high;
    if (low < this.low) this.low = low;
    this.close = close;
    this.volume += volume;
    this.trades += trades;
  }

  private flush(): void {
    if (Number.isNaN(this.start)) return;
    this.out.push({ start: microsTime(this.start), open: this.open, high: this.high, low: this.low, close: this.close, volume: this.volume, trades: this.trades });
  }
}

/** The first index whose trade is at or after `micros`. */
function firstAtOrAfter(trades: readonly TapeTrade[], micros: number): number {
  let lo = 0;
  let hi = trades.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeMicros((trades[mid] as TapeTrade).occurred_at) < micros) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The candles of [from, to) from a market's trades, oldest first (the tape is in time order). */
export function candles(trades: readonly TapeTrade[], interval: CandleInterval, fromMicros: number, toMicros: number): Candle[] {
  const builder = new CandleBuilder(interval);
  for (let i = firstAtOrAfter(trades, fromMicros); i < trades.length; i++) {
    const t = trades[i] as TapeTrade;
    const at = timeMicros(t.occurred_at);
    if (at >= toMicros) break;
    builder.trade(at, t.price, t.quantity);
  }
  return builder.candles();
}

/**
 * The minutes a range [from, to) covers whole, and the parts before and after them that only trades can
 * answer: [from, head) and [tail, to), each empty (start = end) when the range starts or ends on a minute.
 */
export function minuteSpan(fromMicros: number, toMicros: number): { readonly head: number; readonly tail: number } {
  const head = Math.min(Math.ceil(fromMicros / MINUTE_MICROS) * MINUTE_MICROS, toMicros);
  const tail = Math.max(head, Math.floor(toMicros / MINUTE_MICROS) * MINUTE_MICROS);
  return { head, tail };
}
