// The public history of the selected market from the REST routes of trading-extensions.md: the newest
// trades of the tape (with the taker's side, also those from before the page opened) and 1-minute
// candles. Polled every two seconds while shown; a change of market fetches at once.
import type { TradeView as TapeTrade } from '../../src/projections/history/trade-tape.ts';
import type { Candle } from '../../src/projections/candles.ts';
import { apiRequest, describeError } from './api.ts';

export type { Candle, TapeTrade };

const POLL_MS = 2_000;

export class MarketHistory {
  market: string | null = null;
  trades: TapeTrade[] = [];
  candles: Candle[] = [];
  error: string | null = null;
  private readonly listeners = new Set<() => void>();
  private timer: number | null = null;
  private generation = 0;

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Follows this market (null: none); fetches at once when it changed. */
  follow(market: string | null): void {
    if (market === this.market) return;
    this.market = market;
    this.trades = [];
    this.candles = [];
    void this.refresh();
    if (this.timer === null) this.timer = window.setInterval(() => void this.refresh(), POLL_MS);
  }

  private async refresh(): Promise<void> {
    const market = this.market;
    const generation = ++this.generation;
    if (market === null) return;
    try {
      const id = encodeURIComponent(market);
      const [tape, candles] = await Promise.all([
        apiRequest<{ trades: TapeTrade[] }>('GET', `/api/v1/markets/${id}/trades?limit=40`),
        apiRequest<{ candles: Candle[] }>('GET', `/api/v1/markets/${id}/candles?interval=1m`),
      ]);
      // A newer request (or another market) won the race.
      if (generation !== this.generation) return;
      this.trades = tape.trades;
      this.candles = candles.candles;
      this.error = null;
    } catch (err) {
      if (generation !== this.generation) return;
      this.error = describeError(err);
    }
    for (const listener of this.listeners) listener();
  }
}
