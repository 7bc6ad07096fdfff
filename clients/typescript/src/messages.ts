// The WebSocket frames, as the AsyncAPI document at /api-doc/asyncapi.json describes them. Records
// shared with REST (Order, Fill, Trade) are the types generated from the OpenAPI document; the frames
// themselves are checked against the server's own zod schemas by a type test
// (test/clients/typescript-types.spec.ts), so they cannot drift from the server.
import type { components } from './openapi.ts';

export type Order = components['schemas']['Order'];
export type Fill = components['schemas']['Fill'];
export type Trade = components['schemas']['Trade'];
export type Side = 'BUY' | 'SELL';
/** A key's scope (competition-rules.md): trade does everything, read places no orders. */
export type KeyScope = 'trade' | 'read';
export type OrderType = 'LIMIT' | 'MARKET';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK' | 'POST_ONLY';
export type SelfTradePrevention = 'NONE' | 'CANCEL_TAKER' | 'CANCEL_MAKER' | 'CANCEL_BOTH';

export interface BookOrder {
  order_id: string;
  side: Side;
  price: number;
  remaining: number;
  created_at: string;
}

export type L3Event =
  | { kind: 'order_added'; order: BookOrder }
  | { kind: 'order_updated'; order: BookOrder }
  | { kind: 'order_removed'; order_id: string; side: Side; price: number }
  | { kind: 'trade'; maker_order_id: string; taker_order_id: string; price: number; quantity: number };

/** `key_id` and `scope`: the key the session authenticated with (a read key's trading ops are rejected with insufficient_scope). */
export interface Authenticated { type: 'authenticated'; trader_id: string; username: string; key_id: string; scope: KeyScope }
export interface Snapshot { type: 'snapshot'; channel: 'l3'; market: string; sequence: number; bids: BookOrder[]; asks: BookOrder[]; epoch: string }
export interface L3Delta { type: 'delta'; channel: 'l3'; market: string; sequence: number; events: L3Event[] }
export interface L3Subscribed { type: 'subscribed'; channel: 'l3'; market: string; last_sequence: number; epoch: string; already_subscribed?: true }
export interface TradesSubscribed { type: 'subscribed'; channel: 'trades'; market: string }
export interface Unsubscribed { type: 'unsubscribed'; channel: string; market: string | null }
export interface TradeMessage { type: 'trade'; market: string; trade: Trade }
export interface ResyncRequired {
  type: 'resync_required';
  channel: 'l3' | 'trades' | 'l2' | 'account';
  market: string | null;
  expected_sequence: number | null;
  current_sequence: number | null;
  reason: string;
}
export interface SubmitAck {
  type: 'ack';
  op: 'submit_order';
  request_id: string | null;
  order: Order;
  fills: Fill[];
  resting: boolean;
  duplicate?: true;
  rate_limit_remaining?: number;
}
export interface OrderAck { type: 'ack'; op: 'cancel_order' | 'amend_order'; request_id: string | null; order: Order; rate_limit_remaining?: number }
export interface CancelAllAck { type: 'ack'; op: 'cancel_all'; request_id: string | null; canceled: Order[]; rate_limit_remaining?: number }
export type TradingOp = 'submit_order' | 'cancel_order' | 'amend_order' | 'cancel_all';
export interface Reject { type: 'reject'; op: TradingOp; request_id: string | null; code: string; message: string; rate_limit_remaining?: number; retry_after_ms?: number }
export interface ErrorFrame { type: 'error'; code: string; message: string; request_id?: string }
export interface Pong { type: 'pong'; request_id: string | null }
export interface FillMessage { type: 'fill'; fill: Fill; user_sequence: number }
export interface OrderState { type: 'order_state'; order: Order; status: 'open' | 'filled' | 'canceled' | 'expired'; user_sequence: number }
export interface AdminMessage {
  type: 'admin_message';
  message: {
    message_id: string;
    target_username: string | null;
    target_trader_id: string | null;
    market: string | null;
    level: 'info' | 'warning' | 'critical';
    title: string | null;
    body: string;
    created_at: string;
  };
}
export interface Heartbeat { type: 'heartbeat'; time: string; epoch: string; sequences: Record<string, number> }

export type ServerMessage =
  | Authenticated | Snapshot | L3Delta | L3Subscribed | TradesSubscribed | Unsubscribed | TradeMessage | ResyncRequired
  | SubmitAck | OrderAck | CancelAllAck | Reject | ErrorFrame | Pong | FillMessage | OrderState | AdminMessage | Heartbeat;

/** The arguments of a submit_order (and of POST /api/v1/orders). */
export interface SubmitOrderArgs {
  market: string;
  side: Side;
  /** Required for a LIMIT order, absent for a MARKET order. */
  price?: number;
  quantity: number;
  client_order_id?: string;
  type?: OrderType;
  time_in_force?: TimeInForce;
  self_trade_prevention?: SelfTradePrevention;
}

/** An order named by the exchange's id or by the client_order_id its owner gave it. */
export type OrderRef = { order_id: string; client_order_id?: undefined } | { client_order_id: string; order_id?: undefined };
