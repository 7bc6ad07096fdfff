// OHLCV candles from the trade tape, computed when asked: a bucket per interval aligned in UTC, from
// the trades whose time falls in [from, to), oldest first, empty buckets left out. The tape is in time
// order (admission times only increase), so the range is found by binary search.
import type { TapeTrade } from '../../projections/trade-tape.ts';

export const CANDLE_INTERVALS = { '1m': 60, '5m': 300, '15m': 900, '1h': 3600, '1d': 86_400 } as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;
export const MAX_CANDLES = 1000;

export interface Candle {
  /** RFC 3339 start of the bucket. */
  readonly start: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly trades: number;
}

/** Microseconds since the epoch of an RFC 3339 UTC time with up to six fractional digits. */
export function timeMicros(time: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/i.exec(time);
  if (m === null) return NaN;
  const seconds = Date.parse(`${m[1]}${m[3] === 'z' ? 'Z' : m[3]}`);
  if (Number.isNaN(seconds)) return NaN;
  return seconds * 1000 + Number((m[2] ?? '').padEnd(6, '0'));
}

export function microsTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
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

export function candles(trades: readonly TapeTrade[], interval: CandleInterval, fromMicros: number, toMicros: number): Candle[] {
  const width = CANDLE_INTERVALS[interval] * 1_000_000;
  const out: Candle[] = [];
  let current: { start: number; open: number; high: number; low: number; close: number; volume: number; trades: number } | null = null;
  const flush = (): void => {
    if (current !== null) out.push({ start: microsTime(current.start), open: current.open, high: current.high, low: current.low, close: current.close, volume: current.volume, trades: current.trades });
  };
  for (let i = firstAtOrAfter(trades, fromMicros); i < trades.length; i++) {
    const t = trades[i] as TapeTrade;
    const at = timeMicros(t.occurred_at);
    if (at >= toMicros) break;
    const start = Math.floor(at / width) * width;
    if (current === null || current.start !== start) {
      flush();
      current = { start, open: t.price, high: t.price, low: t.price, close: t.price, volume: 0, trades: 0 };
    }
    if (t.price > current.high) current.high = t.price;
    if (t.price < current.low) current.low = t.price;
    current.close = t.price;
    current.volume += t.quantity;
    current.trades++;
  }
  flush();
  return out;
}
