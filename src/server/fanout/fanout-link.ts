// The main process's side of one fan-out child (one generation; fanout-host.ts starts another if it
// dies). It forks the child, sends it the start record (configuration, epoch, a state snapshot), then
// every event the service publishes, and serves the child's records: trading ops run on the exchange's
// own path (LocalDesk) with their answer written ahead of the command's event, sync requests answered
// in order, cancel-on-disconnect, the figures for /metrics. Upgraded sockets are handed over on the IPC
// channel.
import { fork, type ChildProcess } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Subscription } from 'rxjs';
import { ERRORS } from '../../commands/errors.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import { snapshotLines } from '../../projections/snapshot.ts';
import type { ServerContext } from '../context.ts';
import { expired } from '../keys/key-expiry.ts';
import type { Logger } from '../logger.ts';
import type { WsFigures } from '../operations/metrics/exchange-metrics.ts';
import { rejectFrame } from '../ws/frames.ts';
import { refuseRestarting } from '../ws/gateway.ts';
import { isTradingMessage, type LocalDesk, type TradeOutcome, type TradingMessage } from '../ws/order-desk.ts';
import type { StartRecord } from './fanout-child.ts';
import { CHANNEL_FD, isType, type CloseMessage, type UpgradeMessage } from './ipc-messages.ts';
import { LineReader, LineWriter } from './line-channel.ts';
import { numbered, Tag } from './records.ts';
import type { WsReport } from './ws-report.ts';

const ENTRY = fileURLToPath(new URL('./fanout-child-entry.ts', import.meta.url));

/**
 * Bytes of events the child has not read yet before it counts as stuck: it is killed and a new one
 * started from a fresh snapshot, rather than let it hold the main process's memory.
 */
const MAX_BACKLOG_BYTES = 256 * 1024 * 1024;
/** How long a child may take to load and restore the snapshot. */
const START_TIMEOUT_MS = 30_000;
/** How long a closing child may take to terminate its connections and exit. */
const CLOSE_TIMEOUT_MS = 5_000;

export const NO_FIGURES: WsFigures = { connections: 0, authenticated: 0, subscriptions: 0, framesSent: 0, lagDrops: 0 };

export interface LinkOwner {
  readonly logger: Logger;
  /** The child exited (for any reason; `expected` when this link asked it to). */
  exited(link: FanoutLink, code: number | null, signal: NodeJS.Signals | null, expected: boolean): void;
  /** A report of the child's WebSocket series (what they gained since its previous report). */
  reported(link: FanoutLink, report: WsReport): void;
}

interface Served {
  readonly context: ServerContext;
  readonly desk: LocalDesk;
  readonly subscription: Subscription;
}

export class FanoutLink {
  readonly child: ChildProcess;
  /** Resolves once the child restored the snapshot and takes connections; rejects if it never does. */
  readonly ready: Promise<void>;
  /** Traders with a cancel_on_disconnect connection in this child: a crash is their disconnect. */
  readonly flagged = new Set<string>();
  /** The child's figures as last reported. */
  figures: WsFigures = NO_FIGURES;
  /** Trading ops and sync requests the child sent. */
  readonly received = { trades: 0, syncs: 0 };
  readonly startedAt = performance.now();
  private readonly owner: LinkOwner;
  private readonly channel: Socket;
  private readonly writer: LineWriter;
  private served: Served | null = null;
  private isReady = false;
  private gone = false;
  private closing = false;
  private readonly exit: Promise<void>;
  private nextToken = 1;
  private readonly reportWaiters = new Map<number, () => void>();
  /** Per connection of the child, its last op still running here: the next one runs after it. */
  private readonly chains = new Map<number, Promise<void>>();
  /** The trader each pending chain's connection trades as (for the disconnect's wait: its own ops only). */
  private readonly chainTraders = new Map<number, string>();
  private failed: (err: Error) => void = () => {};
  private stampedWrite = -1;
  private startTimer: NodeJS.Timeout | null = null;
  /**
   * Sockets handed over whose sending has not called back yet. Node sends one handle at a time and
   * queues the next until the child acknowledges the last; if the child dies meanwhile the queued
   * ones are dropped without a callback, and their clients waited for an answer until they timed out
   * (a proxy's 504). They are answered 503 when the child exits.
   */
  private readonly handing = new Set<Socket>();

  constructor(owner: LinkOwner) {
    this.owner = owner;
    // stdio: no stdin; the child logs where this process logs; 3 is the IPC channel (handles and
    // lifecycle), 4 the data channel (a socketpair: ordered records each way).
    this.child = fork(ENTRY, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'], execArgv: [], serialization: 'json' });
    const channel = this.child.stdio[CHANNEL_FD];
    if (!(channel instanceof Socket)) throw new Error('ws fan-out: the data channel is not a socket');
    this.channel = channel;
    this.writer = new LineWriter(channel);
    const reader = new LineReader((line) => this.receive(line));
    channel.on('data', (chunk: Buffer) => reader.push(chunk));
    // A write to a child that just died fails with EPIPE; the exit handler deals with the death.
    channel.on('error', (err) => owner.logger.debug({ err }, 'ws fan-out: data channel error'));
    this.child.on('error', (err) => owner.logger.warn({ err }, 'ws fan-out: child process error'));
    let started!: () => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      this.failed = reject;
    });
    // Rejections are for the host's start; nobody else must see them unhandled.
    this.ready.catch(() => {});
    this.child.on('message', (message: unknown) => {
      if (!isType(message, 'ready') || this.isReady) return;
      if (this.startTimer !== null) clearTimeout(this.startTimer);
      this.isReady = true;
      started();
    });
    this.exit = new Promise<void>((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (this.startTimer !== null) clearTimeout(this.startTimer);
        this.gone = true;
        this.writer.close();
        this.served?.subscription.unsubscribe();
        this.served = null;
        channel.destroy();
        for (const wake of this.reportWaiters.values()) wake();
        this.reportWaiters.clear();
        for (const socket of this.handing) refuseRestarting(socket);
        this.handing.clear();
        this.failed(new Error(`ws fan-out: the child exited (${signal ?? code ?? 'unknown'}) before it was ready`));
        owner.exited(this, code, signal, this.closing);
        resolve();
      });
    });
    // The child must never keep this process alive on its own (a test runner, a stopped server).
    this.child.unref();
    this.child.channel?.unref();
    channel.unref();
  }

  get alive(): boolean {
    return this.isReady && !this.gone && !this.closing;
  }

  /**
   * Starts feeding the child: the start record, a snapshot of the live state as it is now (a record a
   * part: its size follows the live state, and no one string holds it), then every event the service
   * publishes from now on (in the same turn, so none falls between the two; events already in the
   * snapshot but published later are skipped by the child).
   */
  begin(context: ServerContext, desk: LocalDesk): void {
    if (this.served !== null || this.gone) return;
    // The child needs no secret: it never writes the log nor checks the admin token.
    const start: StartRecord = { config: { ...context.config, adminToken: '', databaseUrl: '' }, epoch: context.epoch };
    this.writer.pushNow(`${Tag.Start}${JSON.stringify(start)}`);
    for (const line of snapshotLines(context.service.state)) this.writer.pushNow(`${Tag.SnapshotLine}${line}`);
    this.writer.pushNow(Tag.SnapshotEnd);
    // Ref'd while the child starts, so a process with nothing else to do yet waits for it.
    this.startTimer = setTimeout(() => {
      this.failed(new Error(`ws fan-out: the child did not start within ${START_TIMEOUT_MS} ms`));
      this.kill();
    }, START_TIMEOUT_MS);
    const subscription = context.service.publications$.subscribe((p) => {
      if (p.kind === 'event') this.event(p.event);
    });
    this.served = { context, desk, subscription };
  }

  /** Hands an upgrade request (from the client at `address`) and its socket to the child, which answers it from then on. */
  handOver(req: IncomingMessage, socket: Duplex, head: Buffer, address: string): void {
    if (!(socket instanceof Socket) || !this.alive) {
      socket.destroy();
      return;
    }
    stopReading(socket);
    const message: UpgradeMessage = { type: 'upgrade', method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, head: head.toString('base64'), address };
    // Detached from the HTTP server first: a socket sent while still the server's registers the child
    // as one of its "workers", and server.close() then waits for that child forever once it has died.
    // The socket's own close below still counts it out of the server's connections.
    Reflect.set(socket, 'server', null);
    this.handing.add(socket);
    // keepOpen: this process closes its own descriptor, once the message that carries a copy of it is
    // written. Left to node (keepOpen false), it is closed when the child acknowledges the handle, and
    // never if the child dies first: the client then waited, unanswered, until it timed out.
    this.child.send(message, socket, { keepOpen: true }, (err) => {
      this.handing.delete(socket);
      if (err !== null) {
        this.owner.logger.debug({ err }, 'ws fan-out: could not hand a connection over');
        refuseRestarting(socket);
        return;
      }
      // Only now: a handle waits in a queue while another is on its way. From here the child holds the
      // connection (the copy in flight keeps it open until the child takes it, or dies).
      socket.destroy();
    });
  }

  /** Asks the child for its figures and series; resolves when they came or after `timeoutMs`. */
  report(timeoutMs: number): Promise<void> {
    if (!this.alive) return Promise.resolve();
    const token = this.nextToken++;
    this.writer.push(`${Tag.Metrics}${token}`);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.reportWaiters.delete(token);
        resolve();
      }, timeoutMs);
      this.reportWaiters.set(token, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Asks the child to terminate its connections and exit; kills it if it does not in time. */
  async close(): Promise<void> {
    if (this.gone) return;
    this.closing = true;
    this.served?.subscription.unsubscribe();
    this.served = null;
    const message: CloseMessage = { type: 'close' };
    // A callback, so a channel that closed meanwhile is an argument here, not an 'error' event.
    if (this.child.connected) this.child.send(message, undefined, undefined, () => {});
    else this.child.kill('SIGTERM');
    await this.exited(CLOSE_TIMEOUT_MS);
  }

  /** Ends the child at once (it is stuck, or the server failed to start). */
  kill(): void {
    if (!this.gone) this.child.kill('SIGKILL');
  }

  /**
   * Resolves once the child has exited; kills it if it has not within `ms`. The timer is ref'd: the
   * child and its channels are not, so without it a process with nothing else left to do would end
   * here, before the child (and with exit code 0 where a failed start means to exit 1).
   */
  async exited(ms = CLOSE_TIMEOUT_MS): Promise<void> {
    if (this.gone) return;
    const timer = setTimeout(() => this.kill(), ms);
    await this.exit;
    clearTimeout(timer);
  }

  private event(event: ExchangeEvent): void {
    // The child measures how far behind it is from these (fanout-child.ts): one per write that carries
    // events, ahead of them.
    if (this.stampedWrite !== this.writer.flushes) {
      this.stampedWrite = this.writer.flushes;
      this.writer.push(`${Tag.Clock}${Date.now()}`);
      // The backlog only grows when a write goes out, so once per write is enough to look at it.
      if (this.writer.backlog > MAX_BACKLOG_BYTES && !this.closing) {
        this.owner.logger.error({ backlog: this.writer.backlog, pid: this.child.pid }, 'ws fan-out: the child stopped reading events; restarting it');
        this.kill();
      }
    }
    this.writer.push(`${Tag.Event}${JSON.stringify(event)}`);
  }

  // The child's records. Nothing it sends may take this process down: a record that does not parse is
  // logged and dropped.
  private receive(line: string): void {
    const served = this.served;
    if (served === null) return;
    try {
      switch (line[0]) {
        case Tag.Trade:
          this.received.trades++;
          this.trade(served, line);
          return;
        case Tag.Sync:
          this.received.syncs++;
          // In order after every event published so far: the child has folded them when it reads this.
          this.writer.push(line);
          return;
        case Tag.Flagged:
          this.flagged.add(line.slice(1));
          return;
        case Tag.Unflagged:
          this.flagged.delete(line.slice(1));
          return;
        case Tag.KeyUsed:
          served.context.keyUsage.touch(line.slice(1));
          return;
        case Tag.Disconnected: {
          const trader = line.slice(1);
          this.flagged.delete(trader);
          // After the trader's ops the child forwarded before the close: they are chained here, and a
          // cancel run at once went ahead of them, leaving the orders they placed open. Only its own: a
          // wait for other traders' ops delayed it, and could let it cancel an order the trader placed
          // after reconnecting.
          const pending: Promise<void>[] = [];
          for (const [conn, chain] of this.chains) if (this.chainTraders.get(conn) === trader) pending.push(chain);
          if (pending.length === 0) served.desk.disconnected(trader);
          else void Promise.allSettled(pending).then(() => served.desk.disconnected(trader));
          return;
        }
        case Tag.Metrics: {
          const r = numbered(line);
          if (r === null) return;
          const report = JSON.parse(r.rest) as WsReport;
          this.figures = report.figures;
          this.owner.reported(this, report);
          this.reportWaiters.get(r.n)?.();
          this.reportWaiters.delete(r.n);
          return;
        }
        default:
          this.owner.logger.warn({ record: line.slice(0, 64) }, 'ws fan-out: unknown record from the child');
      }
    } catch (err) {
      this.owner.logger.error({ err, record: line.slice(0, 64) }, 'ws fan-out: a record from the child could not be handled');
    }
  }

  // `t<conn> <key hash> <op json>`. The child forwards a connection's ops without waiting for each
  // answer; here they run one after another, as the in-process gateway runs them (with durable acks an
  // op waits for the previous one's commit), so the answers leave in the order of the requests.
  private trade(served: Served, line: string): void {
    const r = numbered(line);
    if (r === null) throw new Error('malformed trade record');
    const conn = r.n;
    const space = r.rest.indexOf(' ');
    const trader = space < 0 ? undefined : served.context.service.state.keys.byApiKeyHash(r.rest.slice(0, space))?.trader_id;
    if (trader !== undefined) this.chainTraders.set(conn, trader);
    const before = this.chains.get(conn);
    const run = (): Promise<void> | undefined => this.runTrade(served, conn, r.rest);
    const done = before === undefined ? run() : before.then(run);
    if (done === undefined) return;
    const tail: Promise<void> = done.then(() => {
      if (this.chains.get(conn) !== tail) return;
      this.chains.delete(conn);
      this.chainTraders.delete(conn);
    });
    this.chains.set(conn, tail);
  }

  // Runs on the exchange's own path, as the in-process gateway would; never rejects.
  private runTrade(served: Served, conn: number, rest: string): Promise<void> | undefined {
    const space = rest.indexOf(' ');
    const message = space < 0 ? null : parseTradingMessage(rest.slice(space + 1));
    if (message === null) {
      this.owner.logger.warn({ record: rest.slice(0, 64) }, 'ws fan-out: a malformed trade record from the child');
      this.writer.push(`${Tag.NoAnswer}${conn}`);
      return undefined;
    }
    const state = served.context.service.state;
    const key = state.keys.byApiKeyHash(rest.slice(0, space));
    const found = key === undefined || expired(key, Date.now()) ? undefined : state.traders.get(key.trader_id);
    if (found === undefined || found.disabled === true) {
      // Revoked while the op was on its way (a rotated, revoked or expired key, a disabled trader): the
      // child closes the session as soon as it folds the revocation (or sees the expiry); nothing runs
      // as the trader meanwhile.
      served.context.metrics.wsRefused(message.op, 'unauthenticated');
      this.writer.push(`${Tag.Answer}${conn} ${rejectFrame(message.op, message.request_id ?? null, 'unauthenticated', ERRORS.unauthenticated.message)}`);
      return undefined;
    }
    if (key?.scope !== 'trade') {
      // The child refuses a read key's trading op itself; main holds to it whatever reaches it.
      served.context.metrics.wsRefused(message.op, 'insufficient_scope');
      this.writer.push(`${Tag.Answer}${conn} ${rejectFrame(message.op, message.request_id ?? null, 'insufficient_scope', ERRORS.insufficient_scope.message)}`);
      return undefined;
    }
    const caller = {
      id: conn,
      answered: false,
      send: (frame: string): void => {
        caller.answered = true;
        this.writer.push(`${Tag.Answer}${conn} ${frame}`);
      },
    };
    const finish = (outcome: TradeOutcome): void => {
      if (outcome.kind === 'over_budget') this.writer.push(`${Tag.OverBudget}${conn} ${Math.max(1, Math.ceil(outcome.retryAfterMs))}`);
      else if (!caller.answered) this.writer.push(`${Tag.NoAnswer}${conn}`);
    };
    let outcome: TradeOutcome | Promise<TradeOutcome>;
    try {
      outcome = served.desk.trade(message, found, caller);
    } catch (err) {
      outcome = Promise.reject(err);
    }
    if (!(outcome instanceof Promise)) {
      finish(outcome);
      return undefined;
    }
    return outcome.then(finish, (err: unknown) => {
      this.owner.logger.error({ err, op: message.op }, 'ws fan-out: a forwarded order operation failed');
      if (!caller.answered) this.writer.push(`${Tag.NoAnswer}${conn}`);
    });
  }
}

/**
 * Stops this process reading a socket it hands over. Node keeps the descriptor open (and reading) here
 * until the child acknowledges the handle, and drops whatever it reads meanwhile: on a busy machine a
 * client's first frame, sent as soon as the child answered the upgrade, was read and lost here now and
 * then. socket.pause() does not stop the handle reading, and nothing public does; the handle's own
 * readStop does (and `reading` false keeps net from starting it again).
 */
function stopReading(socket: Socket): void {
  const handle: unknown = Reflect.get(socket, '_handle');
  if (typeof handle !== 'object' || handle === null) return;
  const readStop: unknown = Reflect.get(handle, 'readStop');
  if (typeof readStop !== 'function') return;
  Reflect.set(handle, 'reading', false);
  Reflect.apply(readStop, handle, []);
}

// The child parsed the frame with the client schemas already; this only checks it is one of the ops.
function parseTradingMessage(json: string): TradingMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const message = value as { readonly op: string };
  return isTradingMessage(message) ? message : null;
}
