// Each market's trades in the session (since the log began or the last reset of all trading): last
// price and quantity, volume, high, low and count, what the ticker channel shows. Live state: a few
// numbers a market, carried by snapshots, so a process starting (a restart, a fan-out child) begins its
// tickers where the log left them without reading any trade history.
import type { Interner } from '../events/interner.ts';
import type { ExchangeEvent } from '../events/types.ts';

export interface SessionStatsView {
  readonly market: string;
  readonly last_price: number;
  readonly last_quantity: number;
  readonly volume: number;
  readonly high: number;
  readonly low: number;
  readonly trades: number;
}

interface Stats {
  last_price: number;
  last_quantity: number;
  volume: number;
  high: number;
  low: number;
  trades: number;
}

export class SessionStats {
  private readonly byMarket = new Map<string, Stats>();
  /**
   * The same records by interned market: a trade's market is the string decide interned for its
   * command, which the interner finds at once (a Map hashed it again: with the current minute's map,
   * 1-2% of bench:engine's time, 2026-12-06).
   */
  private readonly byIndex: (Stats | undefined)[] = [];
  private readonly marketNames: Interner;

  constructor(marketNames: Interner) {
    this.marketNames = marketNames;
  }

  of(market: string): SessionStatsView | undefined {
    const s = this.byMarket.get(market);
    return s === undefined ? undefined : { market, ...s };
  }

  get size(): number {
    return this.byMarket.size;
  }

  apply(event: ExchangeEvent): void {
    switch (event.type) {
      case 'OrderSubmitted': {
        const { order, fills } = event.data;
        if (fills.length === 0) return;
        const m = this.marketNames.intern(order.market);
        let s = this.byIndex[m];
        for (const f of fills) {
          if (s === undefined) {
            s = { last_price: f.price, last_quantity: f.quantity, volume: 0, high: f.price, low: f.price, trades: 0 };
            this.byMarket.set(order.market, s);
            this.byIndex[m] = s;
          }
          s.last_price = f.price;
          s.last_quantity = f.quantity;
          s.volume += f.quantity;
          if (f.price > s.high) s.high = f.price;
          if (f.price < s.low) s.low = f.price;
          s.trades++;
        }
        return;
      }
      case 'TradingReset':
        this.byMarket.clear();
        this.byIndex.length = 0;
        return;
      case 'MarketDeleted': {
        this.byMarket.delete(event.data.market_id);
        const m = this.marketNames.indexOf(event.data.market_id);
        if (m >= 0) this.byIndex[m] = undefined;
        return;
      }
      default:
        return;
    }
  }

  /** By market id. */
  snapshot(): SessionStatsView[] {
    return [...this.byMarket.keys()].sort().map((market) => this.of(market) as SessionStatsView);
  }

  restore(views: readonly SessionStatsView[]): void {
    for (const { market, ...s } of views) {
      const stats = { ...s };
      this.byMarket.set(market, stats);
      this.byIndex[this.marketNames.intern(market)] = stats;
    }
  }
}
