// The current minute of every market's trades, as a minute candle: live state. A trade in a later
// minute closes it: the closed minute is history (closed$), written where the history lives, and
// candles of any interval are built from the closed minutes and the current one (candles.ts). Kept
// across resets (candles come from the trade tape, which a reset keeps) and dropped with the market.
import { EventSubject } from '../events/event-subject.ts';
import type { Interner } from '../events/interner.ts';
import type { ExchangeEvent } from '../events/types.ts';
import { MINUTE_MICROS, timeMicros, type MinuteCandle } from './candles.ts';

interface OpenMinute {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  trades: number;
  first_seq: number;
  last_seq: number;
}

export class CandleMinutes {
  /** Every minute closed by a trade of a later minute; built only for a subscriber. */
  readonly closed$ = new EventSubject<MinuteCandle>();
  private readonly open = new Map<string, OpenMinute>();
  /** The same minutes by interned market (a trade's market is found at once: session-stats.ts says why). */
  private readonly byIndex: (OpenMinute | undefined)[] = [];
  private readonly marketNames: Interner;

  constructor(marketNames: Interner) {
    this.marketNames = marketNames;
  }

  /** The market's current minute, or undefined before its first trade. */
  current(market: string): MinuteCandle | undefined {
    const m = this.open.get(market);
    return m === undefined ? undefined : { market, ...m };
  }

  get size(): number {
    return this.open.size;
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'OrderSubmitted') {
      const fills = event.data.fills;
      if (fills.length === 0) return;
      const at = timeMicros(event.time);
      // A time that is not RFC 3339 (a log from elsewhere) falls in no candle's range.
      if (Number.isNaN(at)) return;
      const start = Math.floor(at / MINUTE_MICROS) * MINUTE_MICROS;
      const market = event.data.order.market;
      const index = this.marketNames.intern(market);
      let m = this.byIndex[index];
      if (m !== undefined && m.start !== start) {
        if (this.closed$.observed) this.closed$.next({ market, ...m });
        m = undefined;
      }
      for (const f of fills) {
        if (m === undefined) {
          m = { start, open: f.price, high: f.price, low: f.price, close: f.price, volume: 0, trades: 0, first_seq: event.seq, last_seq: event.seq };
          this.open.set(market, m);
          this.byIndex[index] = m;
        }
        if (f.price > m.high) m.high = f.price;
        if (f.price < m.low) m.low = f.price;
        m.close = f.price;
        m.volume += f.quantity;
        m.trades++;
        m.last_seq = event.seq;
      }
    } else if (event.type === 'MarketDeleted') {
      this.open.delete(event.data.market_id);
      const index = this.marketNames.indexOf(event.data.market_id);
      if (index >= 0) this.byIndex[index] = undefined;
    }
  }

  snapshot(): MinuteCandle[] {
    return [...this.open.keys()].map((market) => this.current(market) as MinuteCandle);
  }

  restore(minutes: readonly MinuteCandle[]): void {
    for (const { market, ...m } of minutes) {
      const minute = { ...m };
      this.open.set(market, minute);
      this.byIndex[this.marketNames.intern(market)] = minute;
    }
  }
}
