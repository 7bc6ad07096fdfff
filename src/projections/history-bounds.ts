// Where the history a client is shown begins: fills and orders since the last reset of all trading, a
// market's trade tape (and candles) since the market was last deleted. The history itself lives outside
// the live state (src/server/history/); these two numbers are what its readers filter it by.
import type { ExchangeEvent } from '../events/types.ts';

export class HistoryBounds {
  private reset = 0;
  private readonly deleted = new Map<string, number>();

  /** The seq of the last TradingReset (0: none): fills and orders of earlier seqs are cleared. */
  get resetSeq(): number {
    return this.reset;
  }

  /** The seq the market's tape starts after: its last deletion (0: never deleted). */
  tapeFrom(market: string): number {
    return this.deleted.get(market) ?? 0;
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'TradingReset') this.reset = event.seq;
    else if (event.type === 'MarketDeleted') this.deleted.set(event.data.market_id, event.seq);
  }

  snapshot(): { reset_seq: number; deleted: [string, number][] } {
    return { reset_seq: this.reset, deleted: [...this.deleted.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) };
  }

  restore(s: { readonly reset_seq: number; readonly deleted: readonly (readonly [string, number])[] }): void {
    this.reset = s.reset_seq;
    for (const [market, seq] of s.deleted) this.deleted.set(market, seq);
  }
}
