// A follower's reading of the log. The leader NOTIFYs after each committed batch; the follower LISTENs,
// and on each notification (and on a periodic poll, in case one was missed) reads every event after
// the last one it folded, in seq order, verifies the hash chain link by link, and folds it through the
// service, which publishes what it changes to this node's WebSocket clients. The payload only says
// "there is more"; what is folded is always what the table holds after the last folded seq, so a
// missed notification, a dropped connection or a restart is simply caught up.
import type pg from 'pg';
import { sha256Hex } from '../../events/hash.ts';
import type { Logger } from '../logger.ts';
import { connectClient, errorText } from '../persistence/postgres/connection.ts';
import type { StoredEvent } from '../persistence/postgres/copy-text.ts';
import { LOG_CHANNEL } from '../persistence/postgres/log-channel.ts';
import type { ExchangeService } from '../service.ts';
import type { ReplicaFigures } from './replica-persistence.ts';
import type { ReplicaLog } from './replica-log.ts';

export interface FollowerOptions {
  readonly databaseUrl: string;
  readonly pool: pg.Pool;
  readonly service: ExchangeService;
  readonly log: ReplicaLog;
  readonly head: { readonly seq: number; readonly hash: string };
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  /** The log cannot be vouched for (a gap, a broken link, an event that does not apply). */
  readonly onFatal: (err: Error) => void;
}

export class ReplicationIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplicationIntegrityError';
  }
}

const PAGE = 4096;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

export class LogFollower {
  private readonly options: FollowerOptions;
  private foldedSeq: number;
  private foldedHash: string;
  /** The highest seq anyone told us exists (notifications, reads). */
  private knownHead: number;
  /** When this node first knew of an event it had not folded yet (for lag in ms). */
  private behindSince: number | null = null;
  private listener: pg.Client | null = null;
  private listening = false;
  private reconnectDelay = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private lastError: string | null = null;
  private readOk = true;
  /** When the leader committed the newest event folded (the notification's arrival), for the benchmark. */
  lastDeliveredAt = 0;

  constructor(options: FollowerOptions) {
    this.options = options;
    this.foldedSeq = options.head.seq;
    this.foldedHash = options.head.hash;
    this.knownHead = options.head.seq;
  }

  get seq(): number {
    return this.foldedSeq;
  }

  get hash(): string {
    return this.foldedHash;
  }

  figures(): ReplicaFigures & { headSeq: number; lagEvents: number; lagMs: number } {
    const lagEvents = Math.max(0, this.knownHead - this.foldedSeq);
    return {
      connected: this.listening && this.readOk,
      foldedSeq: this.foldedSeq,
      lastError: this.lastError,
      headSeq: Math.max(this.knownHead, this.foldedSeq),
      lagEvents,
      lagMs: lagEvents === 0 || this.behindSince === null ? 0 : Math.round(performance.now() - this.behindSince),
    };
  }

  start(): void {
    void this.connectListener();
    this.pollTimer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  /** Stops listening and polling; resolves once a read in progress has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.pollTimer = this.reconnectTimer = null;
    const listener = this.listener;
    this.listener = null;
    this.listening = false;
    if (listener !== null) {
      listener.connection.stream.destroy();
      await listener.end().catch(() => {});
    }
    await this.running?.catch(() => {});
  }

  /**
   * Reads to the end of the log now (after stop(): a standby that holds the writer lock, so nothing
   * more can be written, folds the last committed events before it admits commands). Throws on a
   * database error; integrity errors also go to onFatal.
   */
  async drain(): Promise<void> {
    await this.readAll();
  }

  private heard(seq: number): void {
    if (seq > this.knownHead) {
      if (this.knownHead <= this.foldedSeq) this.behindSince = performance.now();
      this.knownHead = seq;
    }
  }

  /** Something may have been committed: read (once more, if a read is running). */
  private wake(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.readAll();
          if (!this.readOk) this.options.logger.info({ seq: this.foldedSeq }, 'follower: reading the log again');
          this.readOk = true;
        } catch (err) {
          if (err instanceof ReplicationIntegrityError) return;
          if (this.readOk) this.options.logger.warn({ err: errorText(err), seq: this.foldedSeq }, 'follower: reading the log failed; retrying');
          this.readOk = false;
          this.lastError = `reading the log after seq ${this.foldedSeq} failed: ${errorText(err)}`;
          // The poll (or the next notification) tries again.
          return;
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = null));
  }

  /**
   * The events after the last folded one, in pages, by a prepared query: following reads a few events
   * hundreds of times a second, where a prepared SELECT costs the database far less than a COPY each
   * time (recovery, which reads the whole tail once, uses COPY).
   */
  private async *tail(): AsyncGenerator<StoredEvent> {
    for (;;) {
      const { rows } = await this.options.pool.query<{ seq: string; hash: string; canonical: string }>({
        name: 'follower-tail',
        text: `select seq, hash, canonical from events where seq > $1 order by seq limit ${PAGE}`,
        values: [this.foldedSeq],
      });
      // The record of truth is the canonical text: readAll checks its seq and its hash link.
      for (const row of rows) yield { event: JSON.parse(row.canonical) as StoredEvent['event'], hash: row.hash, text: row.canonical };
      if (rows.length < PAGE) return;
    }
  }

  private async readAll(): Promise<void> {
    const { service, log, logger } = this.options;
    for await (const stored of this.tail()) {
      const event = stored.event;
      this.heard(event.seq);
      let failure: string | null = null;
      if (event.seq !== this.foldedSeq + 1) failure = `the event log has a gap: seq ${this.foldedSeq + 1} is missing (the next stored event is seq ${event.seq})`;
      const computed = failure === null ? sha256Hex(this.foldedHash + stored.text) : '';
      if (failure === null && computed !== stored.hash) failure = `the event log's hash chain is broken at seq ${event.seq}: the stored event or its hash was altered`;
      if (failure === null) {
        try {
          service.applyReplicated(event);
        } catch (err) {
          failure = `event seq ${event.seq} (${event.type}) cannot be applied: ${errorText(err)}`;
        }
      }
      if (failure !== null) {
        const err = new ReplicationIntegrityError(failure);
        logger.fatal({ err: failure, seq: this.foldedSeq }, 'follower: the log cannot be vouched for; stopping');
        this.stopped = true;
        this.options.onFatal(err);
        throw err;
      }
      this.foldedSeq = event.seq;
      this.foldedHash = computed;
      log.foldedTo(event.seq);
    }
    this.lastDeliveredAt = performance.now();
    if (this.foldedSeq >= this.knownHead) this.behindSince = null;
    this.lastError = null;
  }

  private async connectListener(): Promise<void> {
    if (this.stopped) return;
    let client: pg.Client;
    try {
      client = await connectClient(this.options.databaseUrl, 'exchange-follower-listen');
    } catch (err) {
      this.lastError = errorText(err);
      this.scheduleReconnect(err);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    const lost = (err?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.listening = false;
      client.connection.stream.destroy();
      client.end().catch(() => {});
      this.scheduleReconnect(err ?? new Error('connection ended'));
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel !== LOG_CHANNEL) return;
      const seq = Number(msg.payload);
      if (Number.isSafeInteger(seq)) this.heard(seq);
      this.wake();
    });
    this.listener = client;
    try {
      await client.query(`listen ${LOG_CHANNEL}`);
    } catch (err) {
      lost(err);
      return;
    }
    if (this.listener !== client) return;
    if (this.reconnectDelay > RECONNECT_MIN_MS) this.options.logger.info({ seq: this.foldedSeq }, 'follower: listening to the log again');
    this.listening = true;
    this.reconnectDelay = RECONNECT_MIN_MS;
    // Whatever was committed while nobody listened is read now.
    this.wake();
  }

  private scheduleReconnect(err: unknown): void {
    if (this.stopped || this.reconnectTimer !== null) return;
    if (this.reconnectDelay === RECONNECT_MIN_MS) this.options.logger.warn({ err: errorText(err) }, 'follower: lost the connection that listens to the log; reconnecting');
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connectListener();
    }, delay);
  }
}
