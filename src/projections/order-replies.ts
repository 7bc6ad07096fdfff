// The bodies a trader gets back for an order operation, built right after the command is applied (the
// books still hold every order the command touched, whatever its status: the window of recently
// finished orders), so REST and WebSocket answer with the same records field for field. A repeated
// submission's answer comes from the history as well (src/server/history/order-lookups.ts).
import type { EventOf } from '../events/types.ts';
import type { ExchangeState } from './exchange-state.ts';
import type { OrderView, SubmitReply } from './views.ts';

export type { SubmitReply };

/**
 * The order after matching, the fills it made on submission, and whether a remainder rests. An order
 * that does not rest shows as `remaining` what was canceled or expired (0 when filled in full).
 */
export function submitReply(state: ExchangeState, event: EventOf<'OrderSubmitted'>): SubmitReply {
  const { order, fills } = event.data;
  return {
    order: orderReply(state, order.id),
    fills: fills.map((_, n) => state.fills.viewOf(event, n)),
    resting: event.data.remaining > 0,
  };
}

/** An order the command just touched, as it is now. */
export function orderReply(state: ExchangeState, orderId: string): OrderView {
  const slot = state.books.slotOf(orderId);
  if (slot < 0) throw new Error(`order ${orderId} is not in the books`);
  return state.books.orders.view(slot);
}

/** What cancel-all answers: every order it canceled, oldest first. */
export function cancelAllReply(state: ExchangeState, event: EventOf<'OrdersCanceled'>): { canceled: OrderView[] } {
  return { canceled: event.data.orders.map((o) => orderReply(state, o.order_id)) };
}
