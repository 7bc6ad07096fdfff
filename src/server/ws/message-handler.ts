// The protocol: what each client frame does. Order operations go to a trading desk (order-desk.ts):
// on the matching thread it is ExchangeService.execute, the same admission path as REST, against the
// same per-trader budget, with the ack queued from the service's reply hook before the events it
// caused; in the fan-out child the desk forwards the op to the main process, whose answer comes back
// ahead of the command's events in one ordered stream.
import { ERRORS, rateLimitText } from '../../commands/errors.ts';
import { AbuseMeter } from '../admission/abuse-meter.ts';
import type { ConnectionGate } from '../admission/connection-gate.ts';
import { TokenBucket } from '../admission/token-bucket.ts';
import { hashApiKey } from '../clock.ts';
import { expired } from '../keys/key-expiry.ts';
import { feedUnsubscribedFrame } from '../feeds/feed-frames.ts';
import { feedKey } from '../feeds/feed-subscription.ts';
import type { MarketDataHub } from '../feeds/market-data-hub.ts';
import { parseClientMessage, type ClientMessage, type ClientMessageOf, type ParseResult } from './client-messages.ts';
import type { Connection, Incoming, IncomingHandler } from './connection.ts';
import type { ConnectionRegistry } from './connection-registry.ts';
import {
  rateLimitRejectFrame,
  authenticatedFrame,
  errorFrame,
  pongFrame,
  rejectFrame,
  snapshotFrame,
  subscribedFrame,
  alreadySubscribedFrame,
  tradesSubscribedFrame,
  unsubscribedFrame,
  type TradingOp,
} from './frames.ts';
import { isTradingMessage, type TradeOutcome, type TradingDesk, type TradingMessage } from './order-desk.ts';
import type { WsContext } from './ws-context.ts';

export interface MessageHandlerLimits {
  readonly maxMessageBytes: number;
  readonly maxSubscriptions: number;
  readonly broadcastBuffer: number;
}

/** What one trading op typically brings its own connection: ack, fills, order states, delta, trade. */
const FRAMES_PER_OP = 8;
/** Trading ops of one connection on their way to another process at once, at most. */
const MAX_PIPELINED = 64;

/**
 * Resolves once this process has folded every event the exchange published before it was called (the
 * fan-out child asks the main process); null when the state here is the exchange's own.
 */
export type ReadYourWrites = () => Promise<void> | null;

/** Told of each use of a key (an authenticate, a trading op): src/server/keys/key-usage.ts. */
export type KeyUsed = (keyId: string) => void;

export class MessageHandler implements IncomingHandler {
  private readonly context: WsContext;
  private readonly registry: ConnectionRegistry;
  private readonly limits: MessageHandlerLimits;
  private readonly abuse = new WeakMap<Connection, AbuseMeter>();
  private readonly snapshots = new WeakMap<Connection, TokenBucket>();
  private readonly gate: ConnectionGate | null;
  private readonly feeds: MarketDataHub;
  private readonly desk: TradingDesk;
  private readonly readYourWrites: ReadYourWrites;
  private readonly keyUsed: KeyUsed;

  constructor(
    context: WsContext,
    registry: ConnectionRegistry,
    feeds: MarketDataHub,
    limits: MessageHandlerLimits,
    desk: TradingDesk,
    gate: ConnectionGate | null = null,
    readYourWrites: ReadYourWrites = () => null,
    keyUsed: KeyUsed = () => {},
  ) {
    this.keyUsed = keyUsed;
    this.feeds = feeds;
    this.desk = desk;
    this.readYourWrites = readYourWrites;
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
    const parsed = incoming.kind === 'text' ? parseClientMessage(incoming.text) : null;
    // A pipelining desk may still owe this connection answers: only another trading op goes on now;
    // anything else is answered after them, so replies keep the order of the requests.
    const busy = this.desk.pipeline?.busy(connection.id) ?? null;
    if (busy !== null && !(parsed !== null && parsed.ok && isTradingMessage(parsed.message) && this.forwardable(connection))) return busy.then(() => this.respond(connection, incoming, parsed));
    return this.respond(connection, incoming, parsed);
  }

  private respond(connection: Connection, incoming: Incoming, parsed: ParseResult | null): Promise<void> | undefined {
    if (connection.isClosed) return undefined;
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
        const result = parsed ?? parseClientMessage(incoming.text);
        if (!result.ok) {
          this.context.metrics.wsRefused('(unparsed)', result.code);
          connection.send(errorFrame(result.code, result.error, result.requestId));
          return undefined;
        }
        const message = result.message;
        const started = performance.now();
        const latency = this.context.metrics.wsOp(message.op);
        if (isTradingMessage(message) && this.forwardable(connection)) {
          if (this.mayTrade(connection, message)) this.forward(connection, message, () => latency.observeSince(started));
          else latency.observeSince(started);
          return undefined;
        }
        const pending = this.dispatch(connection, message);
        if (pending === undefined) {
          latency.observeSince(started);
          return undefined;
        }
        return pending.then(() => latency.observeSince(started));
      }
    }
  }

  /**
   * Whether the desk's pipeline takes the connection's next trading op now, without holding its next
   * frame: the first always, more while the frames their answers will bring (about FRAMES_PER_OP each)
   * fit below the depth at which Connection.drain stops reading, so a pipelining client neither loses
   * its market data to lag nor counts as stalled.
   */
  private forwardable(connection: Connection): boolean {
    const pipeline = this.desk.pipeline;
    if (pipeline === undefined || connection.trader === null) return false;
    const due = pipeline.due(connection.id);
    if (due === null) return false;
    return due === 0 || (due < MAX_PIPELINED && connection.queue.depth + (due + 1) * FRAMES_PER_OP <= Math.max(16, this.limits.broadcastBuffer >> 1));
  }

  private forward(connection: Connection, message: TradingMessage, observe: () => void): void {
    const pipeline = this.desk.pipeline;
    const trader = connection.trader;
    if (pipeline === undefined || trader === null) return;
    pipeline.send(message, trader, connection, (outcome) => {
      observe();
      return connection.isClosed ? undefined : this.settle(connection, message, outcome);
    });
  }

  private dispatch(connection: Connection, message: ClientMessage): Promise<void> | undefined {
    switch (message.op) {
      case 'authenticate':
        return this.afterWrites(connection, () => this.authenticate(connection, message));
      case 'subscribe':
        return this.afterWrites(connection, () => this.subscribe(connection, message));
      case 'unsubscribe':
        this.unsubscribe(connection, message);
        return undefined;
      case 'ping':
        connection.send(pongFrame(message.request_id ?? null));
        return undefined;
      case 'submit_order':
      case 'cancel_order':
      case 'amend_order':
      case 'cancel_all':
        return this.trade(connection, message);
    }
  }

  /**
   * Read-your-writes: a client that had a REST answer and then authenticates or subscribes here must be
   * answered from a state that holds what that answer said (its trader, its order in the snapshot).
   */
  private afterWrites(connection: Connection, answer: () => void): Promise<void> | undefined {
    const synced = this.readYourWrites();
    if (synced === null) {
      answer();
      return undefined;
    }
    // A connection that closed meanwhile is out of the registry: answering would index it again.
    return synced
      .then(() => {
        if (!connection.isClosed) answer();
      })
      .catch((err: unknown) => this.context.logger.error({ err, connection: connection.id }, 'ws: answering after a sync failed'));
  }

  private authenticate(connection: Connection, message: ClientMessageOf<'authenticate'>): void {
    const state = this.context.service.state;
    const key = state.keys.byApiKeyHash(hashApiKey(message.api_key));
    // An expired key is refused as an unknown one is (competition-rules.md, "Keys").
    const live = key === undefined || expired(key, Date.now()) ? undefined : key;
    const found = live === undefined ? undefined : state.traders.get(live.trader_id);
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
    this.registry.setTrader(connection, trader ?? null, trader !== undefined && message.cancel_on_disconnect === true, live ?? null);
    this.gate?.setTrader(connection, trader?.trader_id ?? null);
    if (found?.disabled === true) {
      this.context.metrics.wsRefused('authenticate', 'unauthenticated');
      connection.send(errorFrame('unauthenticated', 'trader is disabled'));
    } else if (trader === undefined || live === undefined) {
      this.context.metrics.wsRefused('authenticate', 'invalid_api_key');
      connection.send(errorFrame('invalid_api_key', ERRORS.invalid_api_key.message));
    } else {
      this.keyUsed(live.key_id);
      connection.send(authenticatedFrame(trader.trader_id, trader.username, live));
    }
  }

  /**
   * Whether the connection's key may run a trading op: a read key may not (reject insufficient_scope),
   * and a key past its expiry closes the session (the expiry sweep would, within a second). Refused ops
   * are answered here; nothing runs.
   */
  private mayTrade(connection: Connection, message: TradingMessage): boolean {
    const key = connection.key;
    if (key === null) return true;
    const requestId = message.request_id ?? null;
    if (expired(key, Date.now())) {
      this.context.metrics.wsRefused(message.op, 'unauthenticated');
      connection.send(rejectFrame(message.op, requestId, 'unauthenticated', 'api key expired'));
      this.registry.close(connection, 'api key expired');
      return false;
    }
    if (key.scope !== 'trade') {
      this.context.metrics.wsRefused(message.op, 'insufficient_scope');
      connection.send(rejectFrame(message.op, requestId, 'insufficient_scope', ERRORS.insufficient_scope.message));
      return false;
    }
    this.keyUsed(key.key_id);
    return true;
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
    const sameLineage = message.epoch === undefined ? this.context.config.storageBackend === 'postgres' : message.epoch === epoch;
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

  private trade(connection: Connection, message: TradingMessage): Promise<void> | undefined {
    const trader = connection.trader;
    if (trader === null) {
      this.context.metrics.wsRefused(message.op, 'unauthenticated');
      connection.send(rejectFrame(message.op, message.request_id ?? null, 'unauthenticated', ERRORS.unauthenticated.message));
      return undefined;
    }
    if (!this.mayTrade(connection, message)) return undefined;
    const outcome = this.desk.trade(message, trader, connection);
    if (!(outcome instanceof Promise)) return this.settle(connection, message, outcome);
    return outcome.then((done) => this.settle(connection, message, done));
  }

  private settle(connection: Connection, message: TradingMessage, outcome: TradeOutcome): Promise<void> | undefined {
    return outcome.kind === 'over_budget' && !connection.isClosed ? this.overBudget(connection, message.op, message.request_id ?? null, outcome.retryAfterMs) : undefined;
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
