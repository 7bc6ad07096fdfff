// The l3 feed's messages: a delta (the events one command made in one market's book, with the market's
// sequence) and a snapshot. Their own file so that the feed (market-data.ts) and its ring of recent
// deltas (delta-ring.ts) both import them without importing each other.
import type { Side } from '../events/types.ts';
import type { BookOrderView } from './views.ts';

export type L3Event =
  | { readonly kind: 'order_added'; readonly order: BookOrderView }
  | { readonly kind: 'order_updated'; readonly order: BookOrderView }
  | { readonly kind: 'order_removed'; readonly order_id: string; readonly side: Side; readonly price: number }
  | { readonly kind: 'trade'; readonly maker_order_id: string; readonly taker_order_id: string; readonly price: number; readonly quantity: number };

export interface L3Delta {
  readonly type: 'delta';
  readonly channel: 'l3';
  readonly market: string;
  readonly sequence: number;
  readonly events: readonly L3Event[];
}

export interface L3Snapshot {
  readonly type: 'snapshot';
  readonly channel: 'l3';
  readonly market: string;
  readonly sequence: number;
  readonly bids: BookOrderView[];
  readonly asks: BookOrderView[];
}
