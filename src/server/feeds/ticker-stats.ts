// One market's ticker: best bid and ask from the l2 book, and the session's trades (last price and
// quantity, volume, high, low, count) since the log began or the last reset.
import type { SessionStatsView } from '../../projections/session-stats.ts';
import type { L2Book } from './l2-book.ts';
import type { TickerView } from './feed-frames.ts';

export class TickerStats {
  last_price: number | null = null;
  last_quantity: number | null = null;
  volume = 0;
  high: number | null = null;
  low: number | null = null;
  trades = 0;

  /** Starts from the session's figures so far. */
  seed(s: SessionStatsView): void {
    this.last_price = s.last_price;
    this.last_quantity = s.last_quantity;
    this.volume = s.volume;
    this.high = s.high;
    this.low = s.low;
    this.trades = s.trades;
  }

  trade(price: number, quantity: number): void {
    this.last_price = price;
    this.last_quantity = quantity;
    this.volume += quantity;
    this.high = this.high === null ? price : Math.max(this.high, price);
    this.low = this.low === null ? price : Math.min(this.low, price);
    this.trades++;
  }

  view(market: string, book: L2Book): TickerView {
    const bid = book.bids.best();
    const ask = book.asks.best();
    return {
      market,
      best_bid: bid?.price ?? null,
      best_bid_quantity: bid?.quantity ?? null,
      best_ask: ask?.price ?? null,
      best_ask_quantity: ask?.quantity ?? null,
      last_price: this.last_price,
      last_quantity: this.last_quantity,
      volume: this.volume,
      high: this.high,
      low: this.low,
      trades: this.trades,
    };
  }
}
