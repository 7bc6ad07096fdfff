// The WebSocket frames the dashboard acts on (websocket.md). Unknown types are ignored, as the protocol
// asks of clients.
import type { AdminMessage, BookOrder, Fill, Order, Side } from './api-types.ts';

export type L3Event =
  | { readonly kind: 'order_added'; readonly order: BookOrder }
  | { readonly kind: 'order_updated'; readonly order: BookOrder }
  | { readonly kind: 'order_removed'; readonly order_id: string; readonly side: Side; readonly price: number }
  | { readonly kind: 'trade'; readonly maker_order_id: string; readonly taker_order_id: string; readonly price: number; readonly quantity: number };

export interface SnapshotMessage {
  readonly type: 'snapshot';
  readonly channel?: 'l3';
  readonly market: string;
  readonly sequence: number;
  readonly epoch?: string;
  readonly bids: readonly BookOrder[];
  readonly asks: readonly BookOrder[];
}

export interface DeltaMessage {
  readonly type: 'delta';
  readonly market: string;
  readonly sequence: number;
  readonly events: readonly L3Event[];
}

/** A price level of the conflated l2 channel; quantity 0 in an update removes it. */
export interface L2Level {
  readonly price: number;
  readonly quantity: number;
  readonly orders: number;
}

export interface L2SnapshotMessage {
  readonly type: 'snapshot';
  readonly channel: 'l2';
  readonly market: string;
  readonly sequence: number;
  readonly depth: number | null;
  readonly bids: readonly L2Level[];
  readonly asks: readonly L2Level[];
}

export interface L2UpdateMessage {
  readonly type: 'update';
  readonly channel: 'l2';
  readonly market: string;
  readonly sequence: number;
  readonly bids: readonly L2Level[];
  readonly asks: readonly L2Level[];
}

export interface TickerMessage {
  readonly type: 'ticker';
  readonly market: string;
  readonly best_bid: number | null;
  readonly best_bid_quantity: number | null;
  readonly best_ask: number | null;
  readonly best_ask_quantity: number | null;
  readonly last_price: number | null;
  readonly last_quantity: number | null;
  readonly volume: number;
  readonly high: number | null;
  readonly low: number | null;
  readonly trades: number;
}

export interface StandingsRow {
  readonly rank: number;
  readonly username: string;
  readonly net_pnl: number;
  readonly realized_pnl: number;
  readonly unrealized_pnl: number;
  readonly gross_exposure: number;
}

export interface StandingsMessage {
  readonly type: 'standings';
  readonly seq: number;
  readonly time: string;
  readonly rows: readonly StandingsRow[];
}

/** Extension: a resubscribe with last_sequence answered by replaying deltas instead of a snapshot. */
export interface SubscribedMessage {
  readonly type: 'subscribed';
  readonly market: string;
  readonly last_sequence: number;
  readonly epoch?: string;
}

export interface ResyncMessage {
  readonly type: 'resync_required';
  readonly channel: 'l3' | 'l2' | 'account';
  readonly market: string | null;
  readonly reason: string;
}

export type ServerMessage =
  | SnapshotMessage
  | L2SnapshotMessage
  | L2UpdateMessage
  | TickerMessage
  | StandingsMessage
  | DeltaMessage
  | SubscribedMessage
  | ResyncMessage
  | { readonly type: 'heartbeat'; readonly epoch?: string; readonly sequences?: Readonly<Record<string, number>> }
  | { readonly type: 'authenticated'; readonly trader_id: string; readonly username: string }
  | { readonly type: 'unsubscribed'; readonly channel?: string; readonly market: string | null }
  | { readonly type: 'error'; readonly code: string; readonly message: string }
  | { readonly type: 'reject'; readonly op: string; readonly request_id: string | null; readonly code: string; readonly message: string }
  // Extension: a submit ack carries the REST reply's order, fills and resting; cancel and amend acks the order.
  | { readonly type: 'ack'; readonly op: string; readonly request_id: string | null; readonly order?: Order; readonly fills?: readonly Fill[]; readonly resting?: boolean }
  | { readonly type: 'pong'; readonly request_id: string | null }
  | { readonly type: 'fill'; readonly fill: Fill; readonly user_sequence?: number }
  | { readonly type: 'order_state'; readonly order: Order; readonly status: 'open' | 'filled' | 'canceled'; readonly user_sequence?: number }
  | { readonly type: 'admin_message'; readonly message: AdminMessage };

const KNOWN = new Set<string>([
  'snapshot',
  'delta',
  'subscribed',
  'resync_required',
  'heartbeat',
  'authenticated',
  'unsubscribed',
  'error',
  'reject',
  'ack',
  'pong',
  'fill',
  'order_state',
  'admin_message',
  'update',
  'ticker',
  'standings',
]);

/** The frame as a known message, or null for anything else. The shapes are the server's contract. */
export function parseServerMessage(text: string): ServerMessage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || !('type' in parsed) || typeof parsed.type !== 'string' || !KNOWN.has(parsed.type)) return null;
  return parsed as ServerMessage;
}
