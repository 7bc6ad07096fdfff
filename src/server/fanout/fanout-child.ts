// The fan-out child (WS_FANOUT=process): it owns every WebSocket connection, so no socket write runs on
// the thread that matches orders. It is a follower of the main process's published events: it
// restores the snapshot main sends first, then folds every event main publishes with its own
// ExchangeService, whose publications (deltas, private events, operator messages, resyncs,
// revocations) drive the unchanged gateway of src/server/ws/ and feeds of src/server/feeds/. Trading ops
// go to main (remote-desk.ts); authenticate and subscribe wait for a sync with main (sync-barrier.ts).
// It ends when main says so, when main goes away (its channel closes), or when it cannot fold an event.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { Exchange } from '../../commands/exchange.ts';
import type { RecordedEvent } from '../../events/upcasters/upcast.ts';
import { SnapshotRestorer, type SnapshotHead, type SnapshotPart } from '../../projections/snapshot.ts';
import { AdmissionClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { createLogger, type Logger } from '../logger.ts';
import { InMemoryPersistence } from '../persistence/in-memory.ts';
import { ExchangeService } from '../service.ts';
import { KeyUsage } from '../keys/key-usage.ts';
import { WsGateway } from '../ws/gateway.ts';
import { EventFollower } from './event-follower.ts';
import { CHANNEL_FD, isType, isUpgrade, type ReadyMessage } from './ipc-messages.ts';
import { LineReader, LineWriter } from './line-channel.ts';
import { numbered, Tag } from './records.ts';
import { RemoteDesk } from './remote-desk.ts';
import { SyncBarrier } from './sync-barrier.ts';
import { WsRecorder } from './ws-report.ts';

/** How far behind the exchange the child may fall before it drops its l3 and trades subscriptions. */
export const MAX_LAG_MS = 2_000;

/** The first record main sends; the snapshot's lines follow it. */
export interface StartRecord {
  readonly config: Config;
  readonly epoch: string;
}

class FanoutChild {
  private readonly channel: Socket;
  private readonly writer: LineWriter;
  private readonly desk: RemoteDesk;
  private readonly barrier: SyncBarrier;
  private readonly recorder = new WsRecorder();
  private logger: Logger | null = null;
  private gateway: WsGateway | null = null;
  private follower: EventFollower | null = null;
  /** Between the start record and the snapshot's end: the state being restored. */
  private starting: { readonly start: StartRecord; readonly exchange: Exchange; restorer: SnapshotRestorer | null } | null = null;
  private ending = false;
  /** In a lag episode (measureLag): subscriptions were dropped once already. */
  private lagging = false;

  constructor(channel: Socket) {
    this.channel = channel;
    this.writer = new LineWriter(channel);
    this.desk = new RemoteDesk(this.writer);
    this.barrier = new SyncBarrier(this.writer);
    const reader = new LineReader((line) => this.receive(line));
    channel.on('data', (chunk: Buffer) => reader.push(chunk));
    // Main is gone (it exited, or was killed): nobody feeds this state any more.
    channel.on('close', () => void this.end(0));
    channel.on('error', () => void this.end(0));
    process.on('disconnect', () => void this.end(0));
    process.on('message', (message: unknown, handle: unknown) => this.control(message, handle));
    // The terminal's Ctrl-C reaches the whole process group: main decides when this process stops.
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => void this.end(0));
  }

  private receive(line: string): void {
    if (this.ending) return;
    try {
      switch (line[0]) {
        case Tag.Event:
          this.follower?.push(JSON.parse(line.slice(1)) as RecordedEvent);
          return;
        case Tag.Clock:
          this.measureLag(Number(line.slice(1)));
          return;
        case Tag.Answer: {
          const r = numbered(line);
          if (r !== null) this.desk.answered(r.n, r.rest);
          return;
        }
        case Tag.NoAnswer: {
          const r = numbered(line);
          if (r !== null) this.desk.answered(r.n, null);
          return;
        }
        case Tag.OverBudget: {
          const r = numbered(line);
          if (r !== null) this.desk.overBudget(r.n, Number(r.rest) || 0);
          return;
        }
        case Tag.Sync: {
          const r = numbered(line);
          if (r !== null) this.barrier.answered(r.n);
          return;
        }
        case Tag.Metrics: {
          const r = numbered(line);
          if (r !== null && this.gateway !== null) this.writer.push(`${Tag.Metrics}${r.n} ${JSON.stringify(this.recorder.report(this.gateway.figures()))}`);
          return;
        }
        case Tag.Start:
          this.start(JSON.parse(line.slice(1)) as StartRecord);
          return;
        case Tag.SnapshotLine:
          this.snapshotLine(line.slice(1));
          return;
        case Tag.SnapshotEnd:
          this.started();
          return;
        default:
          this.logger?.warn({ record: line.slice(0, 64) }, 'ws fan-out: unknown record from the main process');
      }
    } catch (err) {
      // An event this state cannot fold, or one that never came (event-follower.ts): it no longer
      // matches the exchange's. End; main starts a new child from a fresh snapshot.
      this.logger?.fatal({ err }, 'ws fan-out: cannot follow the main process; exiting');
      if (this.logger === null) process.stderr.write(`ws fan-out: cannot follow the main process: ${err instanceof Error ? err.message : String(err)}\n`);
      void this.end(1);
    }
  }

  // More l3 deltas than this process can write (subscribers × orders/s past what one core sends) put it
  // behind the exchange, and nothing else would bound how far: the subscribers' own queues stay short,
  // since the backlog is here, not at their sockets. Past MAX_LAG_MS every l3 and trades subscription
  // ends with resync_required, once per episode; subscribing again waits (sync) until this process has
  // caught up with what was published before, so the new snapshot is current.
  private measureLag(sentAt: number): void {
    const lag = Date.now() - sentAt;
    if (!Number.isFinite(lag) || this.gateway === null) return;
    if (lag < MAX_LAG_MS / 2) this.lagging = false;
    if (lag <= MAX_LAG_MS || this.lagging) return;
    this.lagging = true;
    const dropped = this.gateway.dropLagging();
    this.logger?.warn({ lag_ms: lag, dropped }, 'ws fan-out: behind the exchange; l3 and trades subscriptions dropped with resync_required');
  }

  private start(start: StartRecord): void {
    this.logger = createLogger(start.config.logLevel).child({ process: 'ws-fanout' });
    // No window of finished orders: this process answers no order lookups (main does).
    this.starting = { start, exchange: new Exchange({ deltaRing: Math.max(start.config.wsBroadcastBuffer, 1024), recentOrders: 0 }), restorer: null };
  }

  private snapshotLine(text: string): void {
    const starting = this.starting;
    if (starting === null) throw new Error('ws fan-out: a snapshot line before the start record');
    if (starting.restorer === null) starting.restorer = new SnapshotRestorer(starting.exchange.state, JSON.parse(text) as SnapshotHead);
    else starting.restorer.part(JSON.parse(text) as SnapshotPart);
  }

  private started(): void {
    const starting = this.starting;
    if (starting === null || starting.restorer === null) throw new Error('ws fan-out: the snapshot ended before it began');
    this.starting = null;
    starting.restorer.end();
    const { config, epoch } = starting.start;
    const exchange = starting.exchange;
    const logger = this.logger ?? createLogger(config.logLevel);
    const service = new ExchangeService(exchange, new InMemoryPersistence(), new AdmissionClock(), { durableAcks: false });
    this.follower = new EventFollower(service);
    // Key uses go to main, which keeps them (src/server/keys/): at most one record per key a second.
    const uses = new KeyUsage();
    const keyUsed = (keyId: string): void => {
      if (uses.touch(keyId)) this.writer.push(`${Tag.KeyUsed}${keyId}`);
    };
    this.gateway = new WsGateway({ config, service, logger, epoch, metrics: this.recorder }, null, {}, { desk: this.desk, readYourWrites: () => this.barrier.request(), keyUsed });
    logger.debug({ seq: exchange.seq, pid: process.pid }, 'ws fan-out: ready');
    const ready: ReadyMessage = { type: 'ready' };
    process.send?.(ready, undefined, undefined, () => {});
  }

  // The IPC channel: sockets handed over with their upgrade request, and the order to close.
  private control(message: unknown, handle: unknown): void {
    if (isType(message, 'close')) {
      void this.end(0);
      return;
    }
    if (!(handle instanceof Socket)) return;
    if (!isUpgrade(message) || this.gateway === null || this.ending) {
      handle.destroy();
      return;
    }
    try {
      const req = new IncomingMessage(handle);
      req.method = message.method;
      req.url = message.url;
      req.headers = message.headers;
      this.gateway.handleUpgrade(req, handle, Buffer.from(message.head, 'base64'), message.address);
    } catch (err) {
      this.logger?.warn({ err }, 'ws fan-out: could not take over a connection');
      handle.destroy();
    }
  }

  private async end(code: number): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    this.writer.close();
    try {
      await this.gateway?.close();
    } finally {
      this.channel.destroy();
      process.exit(code);
    }
  }
}

/** Runs this process as the fan-out child (its entry: fanout-child-entry.ts). */
export function runFanoutChild(): void {
  new FanoutChild(new Socket({ fd: CHANNEL_FD, readable: true, writable: true }));
}
