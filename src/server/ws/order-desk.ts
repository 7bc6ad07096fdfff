// Where a WebSocket trading op is run. The message handler checks the frame and the connection's
// identity, then hands the op to a desk. The local desk is the exchange's own path (the trader's one
// budget shared with REST, ExchangeService.execute with the reply hook, the frames of frames.ts); it
// runs on the matching thread, for the in-process gateway and for the ops the fan-out child forwards.
// The child's desk (src/server/fanout/remote-desk.ts) forwards the op to the main process instead.
import { ERRORS, isDomainError, type ErrorCode } from '../../commands/errors.ts';
import { DuplicateSubmission } from '../../commands/duplicate-submission.ts';
import { submitCommand } from '../../commands/order-terms.ts';
import type { Command } from '../../commands/types.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import { cancelAllReply, orderReply, submitReply } from '../../projections/order-replies.ts';
import type { TraderView } from '../../projections/views.ts';
import type { Stamp } from '../clock.ts';
import type { ServerContext } from '../context.ts';
import { then, type EarlierOrder } from '../history/history.ts';
import { checkEarlier, duplicateReply, withEarlierOrder } from '../history/order-lookups.ts';
import type { ClientMessageOf } from './client-messages.ts';
import { cancelAllAckFrame, orderAckFrame, rejectFrame, submitAckFrame, withRateLimitRemaining, type TradingOp } from './frames.ts';

export type TradingMessage = ClientMessageOf<'submit_order'> | ClientMessageOf<'cancel_order'> | ClientMessageOf<'amend_order'> | ClientMessageOf<'cancel_all'>;

const TRADING_OPS: readonly TradingOp[] = ['submit_order', 'cancel_order', 'amend_order', 'cancel_all'];

/** How a trading op ended: its ack or reject was sent, or the trader's budget refused it (nothing sent). */
export type TradeOutcome = { readonly kind: 'answered' } | { readonly kind: 'over_budget'; readonly retryAfterMs: number };

export const ANSWERED: TradeOutcome = { kind: 'answered' };

/** Where an op's answer goes: the connection it came from (or, in the main process, its stand-in). */
export interface TradingCaller {
  readonly id: number;
  /** The key the connection authenticated with: the fan-out child names it when it forwards an op. */
  readonly key?: { readonly api_key_hash: string } | null;
  send(frame: string): void;
}

/** True for the ops a desk runs (the others are the gateway's own). */
export function isTradingMessage(message: { readonly op: string }): message is TradingMessage {
  return (TRADING_OPS as readonly string[]).includes(message.op);
}

/**
 * A desk whose answers come from another process (the fan-out child's) takes a connection's
 * consecutive trading ops without waiting for each answer, since the round trip between processes would
 * otherwise bound a client that pipelines. The ops are still run in the order sent and answered in that
 * order; any other frame of the connection waits until every answer due before it has arrived, so the
 * replies keep the order of the requests.
 */
export interface Pipeline {
  /** Settles when the connection has no answer due and no hold; null when it has none now. */
  busy(connectionId: number): Promise<void> | null;
  /** Ops of the connection sent on and not answered yet; null while a hold stops it sending more. */
  due(connectionId: number): number | null;
  /**
   * Sends the op on. `answered` runs in order when its answer arrives (its frame, if any, already sent
   * to the caller); a promise it returns holds the connection's later frames until it settles.
   */
  send(message: TradingMessage, trader: TraderView, caller: TradingCaller, answered: (outcome: TradeOutcome) => Promise<void> | undefined): void;
}

export interface TradingDesk {
  /** Present when the desk pipelines (see Pipeline). */
  readonly pipeline?: Pipeline;
  /**
   * Runs one op of the connection `caller`, authenticated as `trader`. Its ack or reject goes to the
   * caller from the service's reply hook, so before every event the command caused. A returned promise
   * settles once the op is done.
   */
  trade(message: TradingMessage, trader: TraderView, caller: TradingCaller): TradeOutcome | Promise<TradeOutcome>;
  /** The trader's last cancel_on_disconnect connection closed: its open orders are to be canceled. */
  disconnected(traderId: string): void;
  /** The trader now has (true) or no longer has (false) a connection authenticated with cancel_on_disconnect. */
  flagged(traderId: string, flagged: boolean): void;
}

export class LocalDesk implements TradingDesk {
  private readonly context: ServerContext;

  constructor(context: ServerContext) {
    this.context = context;
  }

  trade(message: TradingMessage, trader: TraderView, caller: TradingCaller): TradeOutcome | Promise<TradeOutcome> {
    const traderId = trader.trader_id;
    // The trader's one budget, shared with its REST requests and its other connections.
    const budget = this.context.budgets.take(traderId);
    if (!budget.allowed) return { kind: 'over_budget', retryAfterMs: budget.retryAfterMs };
    const remaining = budget.remaining;
    const requestId = message.request_id ?? null;
    if (message.op === 'submit_order' && message.client_order_id !== undefined) {
      // A client order id the books do not hold is looked up in the history first (order-lookups.ts).
      return withEarlierOrder(this.context.service.state, this.context.history, traderId, message.client_order_id, (lookup) => this.run(message, traderId, requestId, remaining, caller, lookup));
    }
    return this.run(message, traderId, requestId, remaining, caller, null);
  }

  private run(message: TradingMessage, traderId: string, requestId: string | null, remaining: number, caller: TradingCaller, lookup: EarlierOrder | null): TradeOutcome | Promise<TradeOutcome> {
    const send = (frame: string): void => caller.send(frame);
    const op = message.op;
    const { build, ack } = this.plan(message, requestId);
    const service = this.context.service;
    const command = (stamp: Stamp): Command => {
      const built = build(stamp, traderId);
      if (lookup === null || built.type !== 'SubmitOrder') return built;
      const earlier = checkEarlier(service.state, lookup);
      return earlier === undefined ? built : { ...built, earlier_order: earlier };
    };
    const reply = (event: ExchangeEvent, frame: string | null): void => {
      if (frame !== null) send(withRateLimitRemaining(frame, remaining));
      else this.context.logger.error({ op, type: event.type }, 'ws: accepted command produced an unexpected event');
    };
    const refused = (err: unknown): TradeOutcome | Promise<TradeOutcome> => {
      if (err instanceof DuplicateSubmission) {
        // A repeated client_order_id: acked with the first order, once that order is durable.
        const answer = (): TradeOutcome | Promise<TradeOutcome> =>
          then(duplicateReply(service.state, this.context.history, err), (reply) => {
            send(withRateLimitRemaining(submitAckFrame(requestId, reply), remaining));
            return ANSWERED;
          });
        return service.waitsForDurability ? service.whenDurable(err.order?.seq ?? 0).then(answer) : answer();
      }
      const code: ErrorCode = isDomainError(err) ? err.code : 'internal';
      if (!isDomainError(err)) this.context.logger.error({ err, op }, 'ws: order operation failed');
      this.context.metrics.wsRefused(op, code);
      send(withRateLimitRemaining(rejectFrame(op, requestId, code, isDomainError(err) ? err.message : ERRORS.internal.message), remaining));
      return ANSWERED;
    };
    // Admitted in this tick when nothing waits (as the HTTP fast path does): no promise on the order
    // path. `ack` is built right after the command is applied: with durable acks the ack waits for the
    // commit, and by then later commands may have changed the state it shows.
    try {
      if (service.executeNow(command, reply, ack) !== null) return ANSWERED;
    } catch (err) {
      return refused(err);
    }
    return service.execute<string | null>(command, reply, ack, traderId).then(() => ANSWERED, refused);
  }

  disconnected(traderId: string): void {
    // A disconnect's cancel counts against the trader's budget. Within it, the cancel is logged even when
    // nothing is open (the log shows the disconnect); over it, only when something is: a loop of
    // connecting with the flag and closing wrote an empty event per turn, unbudgeted, into the log.
    // Decided when the command runs, after every op the trader sent before, so nothing they place stays.
    const withinBudget = this.context.budgets.take(traderId).allowed;
    this.context.service
      .execute((stamp) => ({ type: 'CancelAllOrders', time: stamp.time, trader_id: traderId, market: null, reason: 'disconnect', ...(withinBudget ? {} : { only_if_open: true }) }), undefined, undefined, traderId)
      .then(
        (event) => this.context.logger.info({ trader_id: traderId, seq: event.seq, canceled: event.type === 'OrdersCanceled' ? event.data.orders.length : 0 }, 'orders canceled on disconnect'),
        (err: unknown) => {
          if (!withinBudget && isDomainError(err) && err.code === 'order_not_found') this.context.logger.debug({ trader_id: traderId }, 'disconnect over budget with nothing open: no event');
          else this.context.logger.warn({ err, trader_id: traderId }, 'cancel on disconnect failed');
        },
      );
  }

  flagged(): void {
    // The connections live in this process: disconnected() says everything there is to say.
  }

  // The command each op builds, and its ack frame (null: the event is not the one the op expects).
  private plan(message: TradingMessage, requestId: string | null): { build: (stamp: Stamp, traderId: string) => Command; ack: (event: ExchangeEvent) => string | null } {
    const state = this.context.service.state;
    switch (message.op) {
      case 'submit_order':
        return {
          build: (stamp, traderId) => submitCommand(message, traderId, stamp),
          ack: (event) => (event.type === 'OrderSubmitted' ? submitAckFrame(requestId, submitReply(state, event)) : null),
        };
      case 'cancel_all':
        return {
          build: (stamp, traderId) => ({ type: 'CancelAllOrders', time: stamp.time, trader_id: traderId, market: message.market ?? null, reason: 'request' }),
          ack: (event) => (event.type === 'OrdersCanceled' ? cancelAllAckFrame(requestId, cancelAllReply(state, event).canceled) : null),
        };
      case 'cancel_order':
      case 'amend_order': {
        // By order_id, or (extension) by the client order id the trader gave it.
        const ref = message.client_order_id !== undefined ? { client_order_id: message.client_order_id } : { order_id: message.order_id ?? '' };
        const ack = (event: ExchangeEvent): string | null =>
          event.type === 'OrderCanceled' || event.type === 'OrderAmended' ? orderAckFrame(message.op, requestId, orderReply(state, event.data.order_id)) : null;
        if (message.op === 'cancel_order') return { build: (stamp, traderId) => ({ type: 'CancelOrder', time: stamp.time, trader_id: traderId, ...ref }), ack };
        const remaining = message.remaining;
        return { build: (stamp, traderId) => ({ type: 'AmendOrder', time: stamp.time, trader_id: traderId, remaining, ...ref }), ack };
      }
    }
  }
}
