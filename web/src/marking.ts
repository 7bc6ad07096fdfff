// The spec's marking price, computed from the live book so a trader's unrealized PnL moves with it:
// the settlement price of a settled market; else the mid of best bid and ask; else the one-sided best
// quote; else the reference price.
import type { Market, Position } from './api-types.ts';
import type { L3Book } from './l3-book.ts';

export function markPrice(market: Market | undefined, book: L3Book | undefined): number | null {
  if (market?.status === 'settled' && market.settlement_price !== null) return market.settlement_price;
  const bid = book?.ready === true ? book.bestBid() : null;
  const ask = book?.ready === true ? book.bestAsk() : null;
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
