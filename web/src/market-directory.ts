// The market list (GET /api/v1/markets, public). Market status changes are not pushed over the
// socket, so it is polled; the tickers follow whatever markets exist.
import { apiRequest, describeError } from './api.ts';
import type { Market } from './api-types.ts';

/** What follows the list of markets (the public feed's tickers). */
export interface MarketWatcher {
  watch(markets: readonly string[]): void;
}

const POLL_MS = 3_000;

export class MarketDirectory {
  markets: readonly Market[] = [];
  error: string | null = null;
  private readonly feed: MarketWatcher;
  private readonly listeners = new Set<() => void>();
  private timer: number | null = null;

  constructor(feed: MarketWatcher) {
    this.feed = feed;
  }

  start(): void {
    void this.refresh();
    this.timer = window.setInterval(() => void this.refresh(), POLL_MS);
  }

  stop(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  get(marketId: string): Market | undefined {
    return this.markets.find((m) => m.market_id === marketId);
  }

  async refresh(): Promise<void> {
    try {
      const markets = await apiRequest<Market[]>('GET', '/api/v1/markets');
      const changed = JSON.stringify(markets) !== JSON.stringify(this.markets) || this.error !== null;
      this.markets = markets;
      this.error = null;
      this.feed.watch(markets.map((m) => m.market_id));
      if (changed) this.emit();
    } catch (err) {
      this.error = describeError(err);
      this.emit();
    }
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
