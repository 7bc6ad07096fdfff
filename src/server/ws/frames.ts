// Server-to-client frames, field for field as ../shared/spec/websocket.md lays them out (plus the
// extensions docs/websocket.md lists). Each builder returns the JSON text once; frames that go to many
// connections are encoded to a Buffer once so no connection encodes them again.
import type { ErrorCode } from '../../commands/errors.ts';
import type { KeyScope } from '../../events/types.ts';
import type { L3Delta, L3Snapshot } from '../../projections/market-data.ts';
import type { SubmitReply } from '../../projections/order-replies.ts';
import type { PrivateEvent } from '../../projections/private-feed.ts';
import type { TradeView } from '../../projections/history/trade-tape.ts';
import type { AdminMessageView, OrderView } from '../../projections/views.ts';
import type { Frame, ServerMessageName } from './server-messages.ts';

export type TradingOp = 'submit_order' | 'cancel_order' | 'amend_order' | 'cancel_all';

/** A frame many connections share: JSON encoded and UTF-8 encoded exactly once. */
export function sharedFrame<K extends ServerMessageName>(message: Frame<K>): Buffer {
  return Buffer.from(JSON.stringify(message));
}

/** Every frame is typed by its schema in server-messages.ts (the AsyncAPI document's source). */
function text<K extends ServerMessageName>(message: Frame<K>): string {
  return JSON.stringify(message);
}

export function deltaFrame(delta: L3Delta): Buffer {
  return sharedFrame<'delta'>(delta);
}

export function heartbeatFrame(time: string, epoch: string, sequences: Readonly<Record<string, number>>): string {
  return text<'heartbeat'>({ type: 'heartbeat', time, epoch, sequences });
}

/** Extension: the key's id and scope (competition-rules.md, "Keys"). */
export function authenticatedFrame(traderId: string, username: string, key: { readonly key_id: string; readonly scope: KeyScope }): string {
  return text<'authenticated'>({ type: 'authenticated', trader_id: traderId, username, key_id: key.key_id, scope: key.scope });
}

export function snapshotFrame(snapshot: L3Snapshot, epoch: string): string {
  return text<'snapshot'>({ ...snapshot, epoch });
}

/** Extension: confirms a subscribe answered by replaying deltas after `last_sequence` instead of a snapshot. */
export function subscribedFrame(market: string, lastSequence: number, epoch: string): string {
  return text<'l3_subscribed'>({ type: 'subscribed', channel: 'l3', market, last_sequence: lastSequence, epoch });
}

export function unsubscribedFrame(channel: string, market: string): string {
  return text<'unsubscribed'>({ type: 'unsubscribed', channel, market });
}

/** Extension: confirms a subscription to the public `trades` channel of a market. */
export function tradesSubscribedFrame(market: string): string {
  return text<'trades_subscribed'>({ type: 'subscribed', channel: 'trades', market });
}

/** One execution on the public `trades` channel: encoded once for every subscriber. */
export function tradeFrame(market: string, trade: TradeView): Buffer {
  return sharedFrame<'trade'>({ type: 'trade', market, trade });
}

/** A `trades` subscriber too far behind lost the channel: it subscribes again for what follows. */
export function tradesResyncFrame(market: string): string {
  return text<'resync_required'>({ type: 'resync_required', channel: 'trades', market, expected_sequence: null, current_sequence: null, reason: 'trades lagged; subscribe again' });
}

export function cancelAllAckFrame(requestId: string | null, canceled: readonly OrderView[]): string {
  return text<'cancel_all_ack'>({ type: 'ack', op: 'cancel_all', request_id: requestId, canceled });
}

/** `request_id` (extension) is added only when the offending frame carried one. */
export function errorFrame(code: ErrorCode, message: string, requestId?: string): string {
  return text<'error'>(requestId === undefined ? { type: 'error', code, message } : { type: 'error', code, message, request_id: requestId });
}

export function rejectFrame(op: TradingOp, requestId: string | null, code: ErrorCode, message: string): string {
  return text<'reject'>({ type: 'reject', op, request_id: requestId, code, message });
}

export function submitAckFrame(requestId: string | null, reply: SubmitReply): string {
  return text<'submit_ack'>({ type: 'ack', op: 'submit_order', request_id: requestId, order: reply.order, fills: reply.fills, resting: reply.resting, ...(reply.duplicate === true ? { duplicate: true } : {}) });
}

export function orderAckFrame(op: 'cancel_order' | 'amend_order', requestId: string | null, order: OrderView): string {
  return text<'order_ack'>({ type: 'ack', op, request_id: requestId, order });
}

export function pongFrame(requestId: string | null): string {
  return text<'pong'>({ type: 'pong', request_id: requestId });
}

/**
 * The internal trader_id stays out: the frame only ever goes to that trader's own connections. Text,
 * not a shared Buffer: a trader has one connection or a few, and each flush copies its frames into one
 * buffer anyway (frame-writer.ts), so encoding the text there saves a Buffer per event.
 */
export function privateEventFrame(event: PrivateEvent): string {
  return event.type === 'fill'
    ? text<'fill'>({ type: 'fill', fill: event.fill, user_sequence: event.user_sequence })
    : text<'order_state'>({ type: 'order_state', order: event.order, status: event.status, user_sequence: event.user_sequence });
}

export function adminMessageFrame(message: AdminMessageView): Buffer {
  return sharedFrame<'admin_message'>({ type: 'admin_message', message });
}

export function l3ResyncFrame(market: string, expectedSequence: number, currentSequence: number): string {
  return text<'resync_required'>({
    type: 'resync_required',
    channel: 'l3',
    market,
    expected_sequence: expectedSequence,
    current_sequence: currentSequence,
    reason: 'market data lagged; resubscribe for a fresh snapshot',
  });
}

export const ACCOUNT_RESYNC_FRAME = sharedFrame<'resync_required'>({
  type: 'resync_required',
  channel: 'account',
  market: null,
  expected_sequence: null,
  current_sequence: null,
  reason: 'admin reset all users',
});

/**
 * Extension: a trader's remaining request budget (docs/websocket.md "Limits"), added to the ack or
 * reject of a trading op. Every frame here is one JSON object, so the field is appended to its text
 * rather than every builder taking one more argument.
 */
export function withRateLimitRemaining(frame: string, remaining: number): string {
  // Joined into a sequential string: a rope (what `+` or a template literal makes of it) is walked twice
  // more on its way out, once to count its UTF-8 bytes and once to write them. A rope flattened in place
  // (by trim, say) is still a ConsString, not the sequential string the fast paths take (ad47d61 tried
  // it and measured WebSocket order entry worse end to end; 2f6e64e took it back).
  return [frame.slice(0, -1), ',"rate_limit_remaining":', String(remaining), '}'].join('');
}

/** A trading op refused for the trader's budget: nothing was done; retry after `retryAfterMs`. */
export function rateLimitRejectFrame(op: TradingOp, requestId: string | null, message: string, retryAfterMs: number): string {
  return text<'reject'>({ type: 'reject', op, request_id: requestId, code: 'rate_limit_exceeded', message, rate_limit_remaining: 0, retry_after_ms: Math.max(1, Math.ceil(retryAfterMs)) });
}

/** Extension: a subscribe to an l3 market the connection already follows; no snapshot is sent again. */
export function alreadySubscribedFrame(market: string, lastSequence: number, epoch: string): string {
  return text<'l3_subscribed'>({ type: 'subscribed', channel: 'l3', market, last_sequence: lastSequence, epoch, already_subscribed: true });
}

