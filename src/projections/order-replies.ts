// The bodies a trader gets back for an accepted order operation, built from the event alone (plus, for
// amend and cancel, the order as it rested just before), so REST and WebSocket answer with the same
// records field for field.
import type { EventOf } from '../events/types.ts';
import type { FillView, OrderView } from './views.ts';

export interface SubmitReply {
  readonly order: OrderView;
  readonly fills: FillView[];
  readonly resting: boolean;
}

/** The order after matching, the fills it made on submission, and whether a remainder rests. */
export function submitReply(event: EventOf<'OrderSubmitted'>): SubmitReply {
  const { order, fills, remaining } = event.data;
  return {
    order: { id: order.id, trader_id: order.trader_id, market: order.market, side: order.side, price: order.price, quantity: order.quantity, remaining, created_at: event.time },
    fills: fills.map((f) => ({ fill_id: f.fill_id, market: order.market, maker_order_id: f.maker_order_id, taker_order_id: order.id, price: f.price, quantity: f.quantity, occurred_at: event.time })),
    resting: remaining > 0,
  };
}

/**
 * The order an amend or cancel answers with: for an amend its new remaining; for a cancel the remaining
 * it had just before (the event records it), as the WebSocket order_state of a cancel shows it too.
 * `before` is the order as it rested when the command was admitted (the event lacks quantity and time).
 */
export function changedOrderReply(before: OrderView, event: EventOf<'OrderAmended'> | EventOf<'OrderCanceled'>): OrderView {
  return { ...before, remaining: event.data.remaining };
}
