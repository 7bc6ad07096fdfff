// Orders in any status since the last reset, as the API shows them: the books hold the open ones and the
// most recently finished (the live state), the history every order finished since the last reset. A
// lookup asks the books first, then the history; so does the duplicate check of a submission with a
// client order id, whose answer the command then carries (SubmitOrder.earlier_order).
import { DuplicateSubmission } from '../../commands/duplicate-submission.ts';
import { DomainError } from '../../commands/errors.ts';
import type { OrderRecord } from '../../projections/books.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import type { SubmitReply } from '../../projections/views.ts';
import { orderView } from '../../projections/books.ts';
import { then, type EarlierOrder, type History, type Maybe } from './history.ts';

/** The trader's order with this id, open or finished since the last reset; another trader's is not found. */
export function findOrder(state: ExchangeState, history: History, traderId: string, orderId: string): Maybe<OrderRecord | undefined> {
  const live = state.books.anyOrder(orderId);
  if (live !== undefined) return live.trader_id === traderId ? live : undefined;
  return then(history.order(orderId), (o) => (o !== undefined && o.trader_id === traderId ? o : undefined));
}

/** The trader's order with this client order id, open or finished since the last reset. */
export function findOrderByClientId(state: ExchangeState, history: History, traderId: string, clientOrderId: string): Maybe<OrderRecord | undefined> {
  return state.books.byClientId(traderId, clientOrderId) ?? history.orderByClientId(traderId, clientOrderId);
}

/**
 * A lookup of the history whose answer came too late: since it was made, the books let go of orders
 * finished after the seq it was true as of (or a reset started the history again), so an order with
 * that client order id may be in neither. The submission looks again.
 */
export class StaleLookup extends Error {
  constructor() {
    super('the history lookup of a client order id is stale');
    this.name = 'StaleLookup';
  }
}

const NOTHING_EARLIER: EarlierOrder = { order: undefined, asOf: Number.POSITIVE_INFINITY };

/** Lookups made stale before a submission gives up (503 history_unavailable), each after a wait of up to STALE_WAIT_MS. */
const STALE_TRIES = 8;
const STALE_WAIT_MS = 250;

/**
 * The trader's earlier order with this client order id that the books no longer hold (undefined: none,
 * or the books hold it and decide finds it there), for SubmitOrder.earlier_order.
 */
export function earlierOrder(state: ExchangeState, history: History, traderId: string, clientOrderId: string | null | undefined): Maybe<EarlierOrder> {
  if (clientOrderId === null || clientOrderId === undefined) return NOTHING_EARLIER;
  if (state.books.clientSlot(traderId, clientOrderId) >= 0) return { order: undefined, asOf: Number.POSITIVE_INFINITY, inBooks: { traderId, clientOrderId } };
  return history.earlierOrder(traderId, clientOrderId, state);
}

/**
 * Called as the command is built, at admission: throws StaleLookup when the lookup can no longer be
 * trusted (the command may have waited, and other commands ran, since it was made).
 */
export function checkEarlier(state: ExchangeState, lookup: EarlierOrder): OrderRecord | undefined {
  // Held by the books when looked up: decide finds it there unless they let go of it meanwhile (the
  // command waited while the window of finished orders moved on), and then the history has it.
  if (lookup.inBooks !== undefined) {
    if (state.books.clientSlot(lookup.inBooks.traderId, lookup.inBooks.clientOrderId) < 0) throw new StaleLookup();
    return undefined;
  }
  if (lookup.asOf === Number.POSITIVE_INFINITY) return undefined;
  if (lookup.asOf < state.bounds.resetSeq || state.books.orders.releasedSeq > lookup.asOf) throw new StaleLookup();
  return lookup.order;
}

/**
 * Runs a submission whose earlier order (by client order id) has been looked up, looking again while
 * the lookup turns out stale. `submit` runs the command with the lookup; it may throw StaleLookup.
 */
export function withEarlierOrder<R>(state: ExchangeState, history: History, traderId: string, clientOrderId: string | null | undefined, submit: (lookup: EarlierOrder) => Maybe<R>): Maybe<R> {
  // Most orders carry no client order id: nothing to look up, nothing allocated.
  if (clientOrderId === null || clientOrderId === undefined) return submit(NOTHING_EARLIER);
  const attempt = (tries: number): Maybe<R> => {
    const retry = (err: unknown): Maybe<R> => {
      if (!(err instanceof StaleLookup)) throw err;
      // The database must hold what the books let go of before a lookup of it can be whole: looking
      // again at once would find the same durable seq (the writer commits every few milliseconds).
      // A writer that stays behind for all the tries is answered as the history being away.
      if (tries >= STALE_TRIES) throw new DomainError('history_unavailable');
      const wait = history.reached(state.books.orders.releasedSeq, STALE_WAIT_MS);
      return wait instanceof Promise ? wait.then(() => attempt(tries + 1)) : attempt(tries + 1);
    };
    const lookup = earlierOrder(state, history, traderId, clientOrderId);
    if (!(lookup instanceof Promise)) {
      let out: Maybe<R>;
      try {
        out = submit(lookup);
      } catch (err) {
        return retry(err);
      }
      return out instanceof Promise ? out.catch(retry) : out;
    }
    return lookup.then((l) => submit(l)).catch(retry);
  };
  return attempt(0);
}

/**
 * A repeated client_order_id: the first order as it is now (the books' if they still hold it; one the
 * history holds is finished and does not change) and all its fills so far.
 */
export function duplicateReply(state: ExchangeState, history: History, duplicate: DuplicateSubmission): Maybe<SubmitReply> {
  const order = state.books.anyOrder(duplicate.orderId) ?? duplicate.order;
  if (order === null || order === undefined) throw new Error(`order ${duplicate.orderId} is in neither the books nor the history`);
  return then(history.fillsOfOrder(order), (fills) => ({ order: orderView(order), fills, resting: order.status === 'open', duplicate: true as const }));
}
