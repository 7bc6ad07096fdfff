// The protocol: what each client frame does. Order operations go through ExchangeService.execute, the
// same admission path as REST, against the same per-trader budget (context.budgets); the ack is queued from the service's
// reply hook, which runs before the command's publications go out, so it precedes the events it caused.
import { DuplicateSubmission, ERRORS, isDomainError, rateLimitText, type ErrorCode } from '../../commands/errors.ts';
import { AbuseMeter } from '../admission/abuse-meter.ts';
import type { ConnectionGate } from '../admission/connection-gate.ts';
import { TokenBucket } from '../admission/token-bucket.ts';
import { submitCommand } from '../../commands/order-terms.ts';
import type { Command } from '../../commands/types.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import { cancelAllReply, duplicateReply, orderReply, submitReply } from '../../projections/order-replies.ts';
import type { Stamp } from '../clock.ts';
import { hashApiKey } from '../clock.ts';
import type { ServerContext } from '../context.ts';
import { feedUnsubscribedFrame } from '../feeds/feed-frames.ts';
import { feedKey, type MarketDataHub } from '../feeds/market-data-hub.ts';
import { parseClientMessage, type ClientMessage, type ClientMessageOf } from './client-messages.ts';
import type { Connection, Incoming, IncomingHandler } from './connection.ts';
import type { ConnectionRegistry } from './connection-registry.ts';
import {
  rateLimitRejectFrame,
  withRateLimitRemaining,
  authenticatedFrame,
  cancelAllAckFrame,
  errorFrame,
  orderAckFrame,
  pongFrame,
  rejectFrame,
  snapshotFrame,
  submitAckFrame,
  subscribedFrame,
  alreadySubscribedFrame,
  tradesSubscribedFrame,
  unsubscribedFrame,
  type TradingOp,
} from './frames.ts';

export interface MessageHandlerLimits {
  readonly maxMessageBytes: number;
  readonly maxSubscriptions: number;
  readonly broadcastBuffer: number;
}

export class MessageHandler implements IncomingHandler {
  private readonly context: ServerContext;
  private readonly registry: ConnectionRegistry;
  private readonly limits: MessageHandlerLimits;
  private readonly abuse = new WeakMap<Connection, AbuseMeter>();
  private readonly snapshots = new WeakMap<Connection, TokenBucket>();
  private readonly gate: ConnectionGate | null;
  private readonly feeds: MarketDataHub;

  constructor(context: ServerContext, registry: ConnectionRegistry, feeds: MarketDataHub, limits: MessageHandlerLimits, gate: ConnectionGate | null = null) {
    this.feeds = feeds;
    this.context = context;
    this.gate = gate;
    this.registry = registry;
    this.limits = limits;
  }

  stalled(connection: Connection): void {
    this.context.logger.warn({ connection: connection.id, depth: connection.queue.depth }, 'ws client stopped reading; terminating');
    connection.markClosed();
    connection.ws.terminate();
  }

  handle(connection: Connection, incoming: Incoming): Promise<void> | undefined {
    switch (incoming.kind) {
      case 'binary':
        this.context.metrics.wsRefused('(unparsed)', 'invalid_message');
        connection.send(errorFrame('invalid_message', 'binary frames are not supported; send JSON text frames'));
        return undefined;
      case 'too_large':
        this.context.metrics.wsRefused('(unparsed)', 'invalid_message');
        connection.send(errorFrame('invalid_message', `frame of ${incoming.bytes} bytes exceeds the limit of ${this.limits.maxMessageBytes} bytes`));
        return undefined;
      case 'text': {
        const parsed = parseClientMessage(incoming.text);
        if (!parsed.ok) {
          this.context.metrics.wsRefused('(unparsed)', parsed.code);
          connection.send(errorFrame(parsed.code, parsed.error, parsed.requestId));
          return undefined;
        }
        const started = performance.now();
        const latency = this.context.metrics.wsOp(parsed.message.op);
        const pending = this.dispatch(connection, parsed.message);
        if (pending === undefined) {
          latency.observeSince(started);
          return undefined;
        }
        return pending.then(() => latency.observeSince(started));
      }
    }
  }

  private dispatch(connection: Connection, message: ClientMessage): Promise<void> | undefined {
    switch (message.op) {
      case 'authenticate':
        this.authenticate(connection, message);
        return undefined;
      case 'subscribe':
        this.subscribe(connection, message);
        return undefined;
      case 'unsubscribe':
        this.unsubscribe(connection, message);
        return undefined;
      case 'ping':
        connection.send(pongFrame(message.request_id ?? null));
        return undefined;
      case 'submit_order': {
        const state = this.context.service.state;
        return this.trade(
          connection,
          'submit_order',
          message.request_id,
          (stamp, traderId) => submitCommand(message, traderId, stamp),
          (event, requestId) => (event.type === 'OrderSubmitted' ? submitAckFrame(requestId, submitReply(state, event)) : null),
        );
      }
      case 'cancel_order':
      case 'amend_order':
        return this.changeOrder(connection, message);
      case 'cancel_all': {
        const state = this.context.service.state;
        return this.trade(
          connection,
          'cancel_all',
          message.request_id,
          (stamp, traderId) => ({ type: 'CancelAllOrders', time: stamp.time, trader_id: traderId, market: message.market ?? null, reason: 'request' }),
          (event, requestId) => (event.type === 'OrdersCanceled' ? cancelAllAckFrame(requestId, cancelAllReply(state, event).canceled) : null),
        );
      }
    }
  }

  private authenticate(connection: Connection, message: ClientMessageOf<'authenticate'>): void {
    const found = this.context.service.state.traders.byApiKeyHash(hashApiKey(message.api_key));
    // A disabled trader's key is refused like an unknown one, with its own code.
    const trader = found?.disabled === true ? undefined : found;
    if (trader !== undefined && this.gate !== null && !this.gate.mayAuthenticate(connection, trader.trader_id)) {
      // Like a failed attempt: the connection is left unauthenticated (and open, for market data).
      this.registry.setTrader(connection, null);
      this.gate.setTrader(connection, null);
      const max = this.context.config.limits.ws_max_connections_per_trader;
      connection.send(errorFrame('too_many_connections', `too many connections for this trader: at most ${max} authenticated at once; close one first`));
      return;
    }
    // A failed attempt leaves the connection unauthenticated rather than silently keeping an identity
    // the client just tried to replace.
    this.registry.setTrader(connection, trader ?? null, trader !== undefined && message.cancel_on_disconnect === true);
    this.gate?.setTrader(connection, trader?.trader_id ?? null);
    if (found?.disabled === true) {
      this.context.metrics.wsRefused('authenticate', 'unauthenticated');
      connection.send(errorFrame('unauthenticated', 'trader is disabled'));
    } else if (trader === undefined) {
      this.context.metrics.wsRefused('authenticate', 'invalid_api_key');
      connection.send(errorFrame('invalid_api_key', ERRORS.invalid_api_key.message));
    } else connection.send(authenticatedFrame(trader.trader_id, trader.username));
  }

  // A subscription is (channel, market): each channel of channels.ts has its branch here.
  private subscribe(connection: Connection, message: ClientMessageOf<'subscribe'>): void {
    if (message.channel === 'trades') {
      this.registry.subscribeTrades(connection, message.market);
      connection.send(tradesSubscribedFrame(message.market));
      return;
    }
    if (message.channel === 'l3') {
      const current = connection.subscriptions.get(message.market);
      if (current !== undefined) {
        // Already followed: the deltas keep coming, so no new snapshot (a client that wants a fresh one
        // unsubscribes first). Repeated subscribes cost the server nothing now.
        connection.send(alreadySubscribedFrame(message.market, current.last, this.context.epoch));
        return;
      }
    }
    const market = message.market ?? null;
    const known = message.channel !== 'l3' && connection.feeds.has(feedKey(message.channel, market));
    if (!known && connection.subscriptions.size + connection.feeds.size >= this.limits.maxSubscriptions) {
      this.context.metrics.wsRefused('subscribe', 'invalid_message');
      connection.send(errorFrame('invalid_message', `too many subscriptions: at most ${this.limits.maxSubscriptions} markets per connection`));
      return;
    }
    switch (message.channel) {
      case 'l3':
        this.subscribeL3(connection, message);
        return;
      case 'l2':
        // An l2 snapshot is a snapshot: it counts against the same per-connection rate.
        if (!this.snapshotAllowed(connection)) {
          const max = this.context.config.limits.ws_snapshots_per_second;
          connection.send(errorFrame('snapshot_rate_limited', `too many snapshots: at most ${max} per second per connection; subscribe to ${message.market} again shortly`));
          return;
        }
        this.feeds.subscribeL2(connection, message.market, message.depth ?? null);
        return;
      case 'ticker':
        this.feeds.subscribeTicker(connection, message.market);
        return;
      case 'standings':
        if (!this.feeds.subscribeStandings(connection)) connection.send(errorFrame('standings_not_public', ERRORS.standings_not_public.message));
        return;
    }
  }

  private unsubscribe(connection: Connection, message: ClientMessageOf<'unsubscribe'>): void {
    switch (message.channel) {
      case 'l3':
        this.registry.unsubscribe(connection, message.market);
        connection.send(unsubscribedFrame(message.channel, message.market));
        return;
      case 'trades':
        this.registry.unsubscribeTrades(connection, message.market);
        connection.send(unsubscribedFrame(message.channel, message.market));
        return;
      default: {
        const market = message.market ?? null;
        this.feeds.unsubscribe(connection, message.channel, market);
        connection.send(feedUnsubscribedFrame(message.channel, market));
      }
    }
  }

  private subscribeL3(connection: Connection, message: ClientMessageOf<'subscribe'> & { channel: 'l3' }): void {
    const { market } = message;
    const batch = message.batch === true;
    const feed = this.context.service.state.marketData;
    const epoch = this.context.epoch;
    // An in-memory server starts its sequences again at every start, so a last_sequence from before a
    // restart may name deltas of another lineage: replay there only for a client that names this epoch.
    // A durable server's sequences continue, so a base client (no epoch) may resume from its sequence.
    const sameLineage = message.epoch === undefined ? this.context.service.persistence.backend === 'postgres' : message.epoch === epoch;
    if (message.last_sequence !== undefined && sameLineage) {
      const replay = feed.deltasAfter(market, message.last_sequence);
      // A replay that would overflow the budget at once is worse than a snapshot: send the snapshot.
      if (replay !== null && connection.queue.depth + replay.length + 1 < this.limits.broadcastBuffer) {
        this.registry.subscribe(connection, market, message.last_sequence, batch);
        connection.send(subscribedFrame(market, message.last_sequence, epoch));
        for (const delta of replay) this.registry.deliver(connection, delta);
        return;
      }
    }
    if (!this.snapshotAllowed(connection)) {
      const max = this.context.config.limits.ws_snapshots_per_second;
      connection.send(errorFrame('snapshot_rate_limited', `too many snapshots: at most ${max} per second per connection; subscribe to ${market} again shortly`));
      return;
    }
    const snapshot = feed.snapshot(market);
    this.registry.subscribe(connection, market, snapshot.sequence, batch);
    connection.send(snapshotFrame(snapshot, epoch));
  }

  private changeOrder(connection: Connection, message: ClientMessageOf<'cancel_order'> | ClientMessageOf<'amend_order'>): Promise<void> | undefined {
    const state = this.context.service.state;
    // By order_id, or (extension) by the client order id the trader gave it.
    const ref = message.client_order_id !== undefined ? { client_order_id: message.client_order_id } : { order_id: message.order_id ?? '' };
    const ack = (event: ExchangeEvent, requestId: string | null): string | null =>
      event.type === 'OrderCanceled' || event.type === 'OrderAmended' ? orderAckFrame(message.op, requestId, orderReply(state, event.data.order_id)) : null;
    if (message.op === 'cancel_order') {
      return this.trade(connection, 'cancel_order', message.request_id, (stamp, traderId) => ({ type: 'CancelOrder', time: stamp.time, trader_id: traderId, ...ref }), ack);
    }
    const remaining = message.remaining;
    return this.trade(connection, 'amend_order', message.request_id, (stamp, traderId) => ({ type: 'AmendOrder', time: stamp.time, trader_id: traderId, remaining, ...ref }), ack);
  }

  private trade(
    connection: Connection,
    op: TradingOp,
    rawRequestId: string | undefined,
    build: (stamp: Stamp, traderId: string) => Command,
    ackFrame: (event: ExchangeEvent, requestId: string | null) => string | null,
  ): Promise<void> | undefined {
    const requestId = rawRequestId ?? null;
    const trader = connection.trader;
    if (trader === null) {
      this.context.metrics.wsRefused(op, 'unauthenticated');
      connection.send(rejectFrame(op, requestId, 'unauthenticated', ERRORS.unauthenticated.message));
      return undefined;
    }
    // The trader's one budget, shared with its REST requests and its other connections.
    const budget = this.context.budgets.take(trader.trader_id);
    if (!budget.allowed) return this.overBudget(connection, op, requestId, budget.retryAfterMs);
    const remaining = budget.remaining;
    return this.context.service
      .execute<string | null>(
        (stamp) => build(stamp, trader.trader_id),
        (event, frame) => {
          if (frame !== null) connection.send(withRateLimitRemaining(frame, remaining));
          else this.context.logger.error({ op, type: event.type }, 'ws: accepted command produced an unexpected event');
        },
        // Built right after the command is applied: with durable acks the ack waits for the commit, and
        // by then later commands may have changed the state it shows.
        (event) => ackFrame(event, requestId),
        trader.trader_id,
      )
      .then(
        () => undefined,
        async (err: unknown) => {
          if (err instanceof DuplicateSubmission) {
            // A repeated client_order_id: acked with the first order, once that order is durable.
            await this.context.service.whenDurable(err.orderId);
            connection.send(withRateLimitRemaining(submitAckFrame(requestId, duplicateReply(this.context.service.state, err.orderId)), remaining));
            return;
          }
          const code: ErrorCode = isDomainError(err) ? err.code : 'internal';
          if (!isDomainError(err)) this.context.logger.error({ err, op }, 'ws: order operation failed');
          this.context.metrics.wsRefused(op, code);
          connection.send(withRateLimitRemaining(rejectFrame(op, requestId, code, isDomainError(err) ? err.message : ERRORS.internal.message), remaining));
        },
      );
  }

  /**
   * A trading op past the trader's budget: rejected, nothing done. A connection refused at
   * WS_ABUSE_MULTIPLE times the budget in each of WS_ABUSE_SECONDS seconds running is closed (1008).
   */
  private overBudget(connection: Connection, op: TradingOp, requestId: string | null, retryAfterMs: number): Promise<void> | undefined {
    const limits = this.context.config.limits;
    const rate = limits.per_user_requests_per_second;
    this.context.metrics.wsRefused(op, 'rate_limited');
    connection.send(rateLimitRejectFrame(op, requestId, rateLimitText(rate), retryAfterMs));
    let meter = this.abuse.get(connection);
    if (meter === undefined) {
      meter = new AbuseMeter(limits.ws_abuse_multiple * rate, limits.ws_abuse_seconds);
      this.abuse.set(connection, meter);
    }
    const t = performance.now();
    if (!meter.refused(t)) {
      // Refused WS_ABUSE_MULTIPLE times its budget this second already: its next frames wait for the
      // next second (the socket pauses once they pile up), so a flood costs a bounded amount of work.
      const until = meter.holdUntil();
      return until > t ? new Promise((resolve) => setTimeout(resolve, until - t)) : undefined;
    }
    this.context.logger.warn({ connection: connection.id, trader_id: connection.trader?.trader_id, rate, seconds: limits.ws_abuse_seconds }, 'ws client kept sending far past its budget; closing');
    connection.markClosed();
    // A close reason is at most 123 bytes.
    connection.ws.close(1008, `rate limit: over ${limits.ws_abuse_multiple}x ${rate} ops/sec for ${limits.ws_abuse_seconds}s`);
    // Its socket may be paused (its frames piled up): read on, so the peer's close reply is seen; a
    // peer that does not answer the close is cut off.
    connection.ws.resume();
    setTimeout(() => connection.ws.terminate(), 2000).unref();
    return undefined;
  }

  /** WS_SNAPSHOTS_PER_SECOND per connection: a deep book's snapshot is the costliest frame there is. */
  private snapshotAllowed(connection: Connection): boolean {
    const rate = this.context.config.limits.ws_snapshots_per_second;
    const now = performance.now();
    let bucket = this.snapshots.get(connection);
    if (bucket === undefined) {
      bucket = new TokenBucket(rate, rate, now);
      this.snapshots.set(connection, bucket);
    }
    return bucket.take(now).allowed;
  }
}
