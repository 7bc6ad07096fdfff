// One WebSocket client: its identity, its market subscriptions, its bounded outbound queue and its
// inbox. Incoming frames are handled strictly one after another, an order operation included, so the
// replies come back in the order the requests were sent; while frames wait, the inbox is bounded by
// pausing the socket.
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { KeyRecord } from '../../projections/api-keys.ts';
import type { TraderView } from '../../projections/views.ts';
import type { FeedSubscription } from '../feeds/feed-subscription.ts';
import type { FlushScheduler } from './flush-scheduler.ts';
import { OutboundQueue, type OutboundLimits } from './outbound-queue.ts';

/** What the inbox holds: a text frame, or a frame refused before parsing. */
export type Incoming = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'binary' } | { readonly kind: 'too_large'; readonly bytes: number };

export interface IncomingHandler {
  /** Handles one frame; a returned promise holds back the connection's next frame until it settles. */
  handle(connection: Connection, incoming: Incoming): Promise<void> | undefined;
  /** The connection could not be sent a frame: its peer stopped reading. */
  stalled(connection: Connection): void;
}

export interface ConnectionLimits extends OutboundLimits {
  readonly maxMessageBytes: number;
  readonly maxPendingIncoming: number;
  readonly stallTimeoutMs: number;
}

export interface Subscription {
  /** The last delta sequence queued to this connection (or its snapshot's sequence). */
  last: number;
  /** Extension: this market's deltas go out inside `batch` frames. */
  batch: boolean;
}

export class Connection {
  readonly id: number;
  readonly ws: WebSocket;
  readonly queue: OutboundQueue;
  /** l3 subscriptions by market. */
  readonly subscriptions = new Map<string, Subscription>();
  /** Markets whose public `trades` channel this connection follows. */
  readonly tradeSubscriptions = new Set<string>();
  /** Conflated-channel subscriptions (l2, ticker, standings), by feedKey. */
  readonly feeds = new Map<string, FeedSubscription>();
  trader: TraderView | null = null;
  /** The key the connection authenticated with (its scope, its expiry), null while unauthenticated. */
  key: KeyRecord | null = null;
  /** Authenticated with cancel_on_disconnect: its trader's orders are canceled when its last such connection closes. */
  cancelOnDisconnect = false;
  /** Cleared by each liveness round, set again by any pong or frame from the peer. */
  alive = true;
  private closed = false;
  private readonly inbox: Incoming[] = [];
  private inboxHead = 0;
  private draining = false;
  private paused = false;
  private stallTimer: NodeJS.Timeout | null = null;
  private readonly limits: ConnectionLimits;
  private readonly handler: IncomingHandler;

  constructor(id: number, ws: WebSocket, socket: Duplex, limits: ConnectionLimits, scheduler: FlushScheduler, handler: IncomingHandler) {
    this.id = id;
    this.ws = ws;
    this.limits = limits;
    this.handler = handler;
    this.queue = new OutboundQueue(ws, socket, limits, scheduler);
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('pong', () => {
      this.alive = true;
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Queues a frame that must not be dropped; a peer too far behind to take it is terminated. */
  send(frame: string | Buffer): void {
    if (this.closed) return;
    if (!this.queue.push(frame)) this.handler.stalled(this);
  }

  /** Stops everything: nothing more is queued or handled. */
  markClosed(): void {
    this.closed = true;
    if (this.stallTimer !== null) clearTimeout(this.stallTimer);
    this.stallTimer = null;
    this.queue.clear();
    this.inbox.length = 0;
    this.inboxHead = 0;
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    this.alive = true;
    const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
    if (isBinary) this.inbox.push({ kind: 'binary' });
    else if (bytes > this.limits.maxMessageBytes) this.inbox.push({ kind: 'too_large', bytes });
    else this.inbox.push({ kind: 'text', text: textOf(data) });
    if (!this.paused && this.inbox.length - this.inboxHead >= this.limits.maxPendingIncoming) {
      this.paused = true;
      this.ws.pause();
    }
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    while (this.inboxHead < this.inbox.length && !this.closed) {
      // A client may send a burst of orders faster than its replies can be written: each one queues an
      // ack and its events. Rather than let the replies pile up to the stalled limit, stop handling the
      // inbox (and reading the socket) until the writes catch up; the client is slowed, not cut off.
      const soft = this.softLimit();
      if (this.queue.depth >= soft) {
        if (!this.paused) {
          this.paused = true;
          this.ws.pause();
        }
        // A peer that reads nothing at all while it keeps sending has stalled: it is cut off then.
        this.stallTimer ??= setTimeout(() => this.handler.stalled(this), this.limits.stallTimeoutMs);
        this.queue.whenDrainedTo(soft >> 1, this.resumeDrain);
        return;
      }
      const incoming = this.inbox[this.inboxHead] as Incoming;
      this.inboxHead++;
      const pending = this.handler.handle(this, incoming);
      if (pending !== undefined) {
        void pending.then(this.resumeDrain, this.resumeDrain);
        return;
      }
    }
    this.inbox.length = 0;
    this.inboxHead = 0;
    this.draining = false;
    if (this.paused && !this.closed) {
      this.paused = false;
      this.ws.resume();
    }
  }

  /** Depth of the outbound queue at which incoming frames wait: half the broadcast budget, so the
   * client's own market data still fits while its requests are held back. */
  private softLimit(): number {
    return Math.max(16, this.limits.broadcastBuffer >> 1);
  }

  private readonly resumeDrain = (): void => {
    if (this.stallTimer !== null) {
      clearTimeout(this.stallTimer);
      this.stallTimer = null;
    }
    this.draining = false;
    this.drain();
  };
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
