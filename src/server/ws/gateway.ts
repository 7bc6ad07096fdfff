// The WebSocket gateway at /ws: upgrades, the connections, the routing of the service's publications
// to them, heartbeats and dead-peer detection. It listens to ExchangeService.publications$ (not the
// state's raw subjects) so every ack precedes the events its command caused, also when acks wait for
// durability. It runs on the service's own HTTP server (WS_FANOUT=inline), or in the fan-out child
// (src/server/fanout/), which is handed each upgraded socket and serves its own folded state.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Subscription as RxSubscription } from 'rxjs';
import { WebSocket, WebSocketServer } from 'ws';
import { nowRfc3339 } from '../clock.ts';
import { ConnectionGate } from '../admission/connection-gate.ts';
import type { ServerContext } from '../context.ts';
import type { WsFigures } from '../operations/metrics/exchange-metrics.ts';
import { MarketDataHub, STANDINGS_INTERVAL_MS } from '../feeds/market-data-hub.ts';
import type { Publication } from '../service.ts';
import { Connection } from './connection.ts';
import { ConnectionRegistry } from './connection-registry.ts';
import { FlushScheduler } from './flush-scheduler.ts';
import { heartbeatFrame } from './frames.ts';
import { DEFAULT_WS_OPTIONS, hardCap, type WsGatewayOptions } from './gateway-options.ts';
import { MessageHandler, type KeyUsed, type ReadYourWrites } from './message-handler.ts';
import { expired } from '../keys/key-expiry.ts';
import { LocalDesk, type TradingDesk } from './order-desk.ts';
import type { WsContext } from './ws-context.ts';

export const WS_PATH = '/ws';

/** Ends an upgrade request with an HTTP error in the API's JSON shape; `headers` end with CRLF each. */
export function refuseUpgrade(socket: Duplex, status: string, error: string, headers = ''): void {
  // The HTTP server takes its 'error' listener off a socket it hands to 'upgrade': a client that resets
  // the connection now (instead of reading the answer, or a proxy aborting it) would emit an error
  // nobody hears, which ends the process; in the fan-out child, with every connection it holds.
  socket.on('error', () => socket.destroy());
  const body = JSON.stringify({ error });
  // Closed once the answer is written, not when the client ends its side: the HTTP server no longer
  // times this socket out, and a client that never closed would hold it for good.
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}

/** A 503 for an upgrade no child can take now (the fan-out child is starting again, or died holding it). */
export function refuseRestarting(socket: Duplex): void {
  refuseUpgrade(socket, '503 Service Unavailable', 'the WebSocket service is restarting; retry shortly', 'Retry-After: 1\r\n');
}

/** Answers an upgrade to another path (404) or during shutdown (503); true when it did. */
export function refusedPathOrShutdown(req: IncomingMessage, socket: Duplex, shuttingDown: boolean): boolean {
  const path = (req.url ?? '').split('?', 1)[0];
  if (path === WS_PATH && !shuttingDown) return false;
  if (shuttingDown) refuseUpgrade(socket, '503 Service Unavailable', 'service is shutting down');
  else refuseUpgrade(socket, '404 Not Found', 'no such route');
  return true;
}

/** Where a gateway that does not run on the matching thread sends trading ops, how it syncs, and where key uses go. */
export interface GatewayWiring {
  readonly desk: TradingDesk;
  readonly readYourWrites: ReadYourWrites;
  readonly keyUsed: KeyUsed;
}

/** How often sessions authenticated with a key that expires are looked at (competition-rules.md: its sessions close). */
export const KEY_EXPIRY_SWEEP_MS = 1000;

function isServerContext(context: WsContext | ServerContext): context is ServerContext {
  return 'budgets' in context;
}

export class WsGateway {
  private readonly context: WsContext;
  private readonly now: () => string;
  private readonly options: WsGatewayOptions;
  private readonly wss: WebSocketServer;
  private readonly registry: ConnectionRegistry;
  private readonly handler: MessageHandler;
  private readonly desk: TradingDesk;
  private readonly gate: ConnectionGate;
  /** The conflated public channels (l2, ticker, standings). */
  readonly feeds: MarketDataHub;
  private readonly scheduler = new FlushScheduler();
  private readonly publications: RxSubscription;
  private readonly timer: NodeJS.Timeout;
  private readonly expiryTimer: NodeJS.Timeout;
  private nextId = 1;
  private closing: Promise<void> | null = null;

  /** On the service's HTTP server, trading through the exchange's own path. */
  constructor(context: ServerContext, http: Server, options?: Partial<WsGatewayOptions>);
  /** Without a server of its own (the fan-out child): upgrades come through handleUpgrade. */
  constructor(context: WsContext, http: null, options: Partial<WsGatewayOptions>, wiring: GatewayWiring);
  constructor(context: WsContext | ServerContext, http: Server | null, options: Partial<WsGatewayOptions> = {}, wiring?: GatewayWiring) {
    this.context = context;
    this.options = { ...DEFAULT_WS_OPTIONS, broadcastBuffer: context.config.wsBroadcastBuffer, maxSubscriptions: context.config.limits.ws_max_subscriptions, ...options };
    this.gate = new ConnectionGate(context.config.limits);
    // No permessage-deflate: a frame is encoded once and the same bytes go to every subscriber.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.options.maxFrameBytes, perMessageDeflate: false, clientTracking: false });
    this.registry = new ConnectionRegistry(context.service.state.marketData.allSequences(), this.scheduler, (traderId, flagged) => this.desk.flagged(traderId, flagged));
    // "Now" as the server's clock tells it (a practice exchange's is simulated); the fan-out child's is the wall clock.
    this.now = isServerContext(context) ? () => context.clock.now() : nowRfc3339;
    this.feeds = new MarketDataHub(context.service.state, {
      intervalMs: context.config.marketDataIntervalMs,
      standingsIntervalMs: STANDINGS_INTERVAL_MS,
      publicStandings: context.config.publicStandings,
      now: this.now,
    });
    let keyUsed: KeyUsed;
    if (wiring !== undefined) {
      this.desk = wiring.desk;
      keyUsed = wiring.keyUsed;
    } else if (isServerContext(context)) {
      this.desk = new LocalDesk(context);
      keyUsed = (keyId) => void context.keyUsage.touch(keyId);
    } else throw new Error('ws gateway: a context without the exchange\'s budgets needs a trading desk');
    this.handler = new MessageHandler(context, this.registry, this.feeds, this.options, this.desk, this.gate, wiring?.readYourWrites, keyUsed);
    // The service publishes book deltas and private events only while a gateway routes them.
    context.service.attachFeeds();
    this.publications = context.service.publications$.subscribe((p) => this.publish(p));
    this.timer = setInterval(() => this.tick(), this.options.heartbeatIntervalMs);
    this.timer.unref();
    this.expiryTimer = setInterval(() => this.closeExpired(Date.now()), KEY_EXPIRY_SWEEP_MS);
    this.expiryTimer.unref();
    // On the service's own server the client's address comes from its resolver (behind a trusted proxy,
    // the address it forwards); in the fan-out child, with each socket handed over.
    if (http !== null && isServerContext(context)) http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head, context.addresses.of(req)));
  }

  get connectionCount(): number {
    return this.registry.all.size;
  }

  /** What /metrics shows of the gateway, read at scrape time. */
  figures(): WsFigures {
    return {
      connections: this.registry.all.size,
      authenticated: this.registry.authenticatedCount,
      subscriptions: this.registry.subscriptionCount,
      framesSent: this.scheduler.framesSent,
      lagDrops: this.registry.lagDrops,
    };
  }

  /** Ends every l3 and trades subscription with resync_required (see ConnectionRegistry.dropLagging). */
  dropLagging(): number {
    return this.registry.dropLagging();
  }

  /**
   * An HTTP upgrade request for this gateway: refused (path, shutdown, connection limits) or accepted.
   * `address` is the client's (ClientAddresses), which the per-address limit counts.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, address: string): void {
    if (refusedPathOrShutdown(req, socket, this.closing !== null)) return;
    const refusal = this.gate.refuseUpgrade(address);
    if (refusal !== null) {
      this.context.logger.info({ address, code: refusal.code }, 'ws upgrade refused');
      refuseUpgrade(socket, refusal.status === 429 ? '429 Too Many Requests' : '503 Service Unavailable', refusal.message, `x-error-code: ${refusal.code}\r\nRetry-After: 1\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, socket, address));
  }

  private accept(ws: WebSocket, socket: Duplex, address: string): void {
    const limits = { ...this.options, hardCap: hardCap(this.options.broadcastBuffer) };
    const connection = new Connection(this.nextId++, ws, socket, limits, this.scheduler, this.handler);
    this.registry.add(connection);
    this.gate.opened(connection, address);
    const idle = this.idleCheck(connection);
    ws.on('close', () => {
      clearTimeout(idle.timer);
      this.gate.closed(connection);
      connection.markClosed();
      const last = this.registry.remove(connection);
      this.feeds.remove(connection);
      // Its trader's last cancel_on_disconnect connection is gone (a close frame, a dropped socket, or a
      // peer the heartbeat found dead); a server shutting down cancels nothing.
      if (last !== null && this.closing === null) this.desk.disconnected(last);
    });
    ws.on('error', (err) => this.context.logger.debug({ err, connection: connection.id }, 'ws connection error'));
    connection.send(this.heartbeat(connection));
  }

  /**
   * Every WS_IDLE_TIMEOUT_MS from its opening, a connection that is neither authenticated nor
   * following any market is closed (1008): an anonymous socket holds a slot only to watch markets.
   */
  private idleCheck(connection: Connection): { timer: NodeJS.Timeout } {
    const ms = this.context.config.limits.ws_idle_timeout_ms;
    const holder = { timer: setTimeout(() => undefined, 0) };
    const check = (): void => {
      if (connection.isClosed) return;
      if (connection.trader === null && connection.subscriptions.size === 0 && connection.tradeSubscriptions.size === 0 && connection.feeds.size === 0) {
        this.context.logger.debug({ connection: connection.id }, 'ws connection idle; closing');
        connection.markClosed();
        connection.ws.close(1008, `idle: authenticate or subscribe within ${ms} ms`);
        return;
      }
      holder.timer = setTimeout(check, ms);
      holder.timer.unref();
    };
    clearTimeout(holder.timer);
    holder.timer = setTimeout(check, ms);
    holder.timer.unref();
    return holder;
  }

  private publish(p: Publication): void {
    switch (p.kind) {
      case 'delta':
        this.registry.onDelta(p.delta);
        this.feeds.onDelta(p.delta);
        break;
      case 'private':
        this.registry.onPrivate(p.event);
        break;
      case 'admin_message':
        this.registry.onAdminMessage(p.message);
        break;
      case 'account_resync':
        this.registry.onAccountResync();
        this.feeds.onReset();
        break;
      case 'revoked': {
        // A disabled trader loses every session; a key rotated away or revoked only its own.
        const keys = this.context.service.state.keys;
        this.registry.revoke(p.trader_id, p.reason, (c) => p.all || c.key === null || keys.byApiKeyHash(c.key.api_key_hash) !== c.key);
        break;
      }
      case 'event':
        this.registry.onEvent(p.event);
        break;
    }
  }

  private heartbeat(connection: Connection): string {
    const sequences: Record<string, number> = {};
    for (const market of connection.subscriptions.keys()) sequences[market] = this.registry.publishedSequence(market);
    return heartbeatFrame(this.now(), this.context.epoch, sequences);
  }

  /** Closes the sessions whose key expired (code 4001, "api key expired"), as a revoked key's are. */
  closeExpired(nowMs: number): void {
    for (const connection of [...this.registry.expiring]) {
      if (connection.key !== null && expired(connection.key, nowMs)) this.registry.close(connection, 'api key expired');
    }
  }

  // One timer for all connections: a peer that answered neither the last ping nor sent anything since
  // is gone; the others get a ping and a heartbeat.
  private tick(): void {
    for (const connection of this.registry.all) {
      if (!connection.alive) {
        this.context.logger.debug({ connection: connection.id }, 'ws peer did not answer ping; terminating');
        connection.markClosed();
        connection.ws.terminate();
        continue;
      }
      connection.alive = false;
      if (connection.ws.readyState !== WebSocket.OPEN) continue;
      connection.ws.ping();
      connection.send(this.heartbeat(connection));
    }
  }

  /** Terminates every client and stops the timers; new upgrades are refused from now on. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      clearInterval(this.expiryTimer);
      this.feeds.close();
      this.publications.unsubscribe();
      for (const connection of [...this.registry.all]) {
        connection.markClosed();
        connection.ws.terminate();
        this.registry.remove(connection);
        this.feeds.remove(connection);
      }
      // The upgrade listener stays: until the HTTP server itself closes, late upgrades get a 503
      // instead of a socket that nobody answers.
      await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    })();
    return this.closing;
  }
}
