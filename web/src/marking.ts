// The spec's marking price, computed from the live book so a trader's unrealized PnL moves with it:
// the settlement price of a settled market; else the mid of best bid and ask; else the one-sided best
// quote; else the reference price.
import type { Market, Position } from './api-types.ts';

/** The best prices of a market as the page knows them (its l3 book, or else its ticker). */
export interface Quote {
  readonly bid: number | null;
  readonly ask: number | null;
}

export function markPrice(market: Market | undefined, quote: Quote | null): number | null {
  if (market?.status === 'settled' && market.settlement_price !== null) return market.settlement_price;
  const bid = quote?.bid ?? null;
  const ask = quote?.ask ?? null;
  if (bid !== null && ask !== null) return (bid + ask) / 2;
  if (bid !== null) return bid;
  if (ask !== null) return ask;
  return market?.reference_price ?? null;
}

export function unrealizedPnl(position: Position, mark: number | null): number | null {
  if (position.net_quantity === 0) return 0;
  if (mark === null || position.average_entry_price === null) return null;
  return position.net_quantity * (mark - position.average_entry_price);
}
