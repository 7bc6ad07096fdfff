// STORAGE_BACKEND=postgres: the append-only log in PostgreSQL, and the history beside it. Startup takes
// the log's advisory lock (one writer per log) and migrates the schema; recover() rebuilds the live
// state from the newest snapshot and the events after it (and, for a log whose history tables are not
// complete, folds the whole log and writes them); then every accepted event goes through the batch
// writer with the history rows it made, and snapshots are written in the background.
import pg from 'pg';
import type { Exchange } from '../../../commands/exchange.ts';
import { GENESIS_HASH } from '../../../events/hash.ts';
import type { ExchangeEvent } from '../../../events/types.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import type { FlushListener, Persistence, PersistenceStatus } from '../persistence.ts';
import { HistoryBackfill, historyComplete } from '../../history/history-backfill.ts';
import { HistoryFeed } from '../../history/history-feed.ts';
import { PostgresHistory } from '../../history/postgres-history.ts';
import { BatchWriter, type BatchWriterOptions } from './batch-writer.ts';
import { clientConfig } from './connection.ts';
import { streamStoredEvents } from './event-stream.ts';
import { readEpoch } from './log-meta.ts';
import { migrate } from './migrator.ts';
import { PostgresEventLog } from './postgres-event-log.ts';
import { recoverExchange, type RecoveredHead } from './recovery.ts';
import { Snapshotter } from './snapshotter.ts';
import { WriterSession } from './writer-session.ts';

export interface PostgresPersistenceOptions {
  /** A flush still running after this long is abandoned and retried (default 10 s). */
  readonly flushTimeoutMs?: number;
  /** How long close() keeps trying to write what is queued (default 10 s). */
  readonly closeTimeoutMs?: number;
  /** Recovery ignores snapshots and folds the whole log (tests and audits). */
  readonly ignoreSnapshots?: boolean;
}

export class PostgresPersistence implements Persistence {
  readonly backend = 'postgres' as const;
  readonly epoch: string;
  readonly log: PostgresEventLog;
  readonly writer: BatchWriter;
  readonly snapshotter: Snapshotter;
  /** The session that holds the writer lock (cluster mode watches it: see src/server/replication/). */
  readonly session: WriterSession;
  /** What the database does not hold yet of the history: the writer writes it, the history reads it. */
  readonly feed = new HistoryFeed();
  readonly history: PostgresHistory;
  private readonly pool: pg.Pool;
  private readonly logger: Logger;
  private readonly ignoreSnapshots: boolean;
  private recovered: RecoveredHead | null = null;
  private closing: Promise<void> | null = null;

  constructor(parts: { epoch: string; databaseUrl: string; session: WriterSession; pool: pg.Pool; writer: BatchWriter; snapshotter: Snapshotter; logger: Logger; ignoreSnapshots: boolean }) {
    this.epoch = parts.epoch;
    this.session = parts.session;
    this.pool = parts.pool;
    this.writer = parts.writer;
    this.snapshotter = parts.snapshotter;
    this.logger = parts.logger;
    this.ignoreSnapshots = parts.ignoreSnapshots;
    this.log = new PostgresEventLog(this.writer, (seq) => this.snapshotter.onAppend(seq));
    this.history = new PostgresHistory({ databaseUrl: parts.databaseUrl, feed: this.feed, logger: this.logger });
    this.writer.attachHistory(this.feed);
  }

  /** What the last recover() did (for logs, tests and the benchmark). */
  get recovery(): RecoveredHead | null {
    return this.recovered;
  }

  status(): PersistenceStatus {
    const f = this.writer.figures();
    return {
      backend: 'postgres',
      mode: f.mode,
      queue_depth: f.queueDepth,
      in_flight_ops: f.inFlight,
      total_enqueued: f.totalEnqueued,
      total_flushes: f.totalFlushes,
      last_error: f.lastError,
      flush_latency_ms: f.latency,
      durable_seq: f.durableSeq,
    };
  }

  observeFlushes(listener: FlushListener): void {
    this.writer.onFlush = listener;
  }

  capacity(): Promise<void> | null {
    return this.writer.capacity();
  }

  headHash(): string {
    return this.writer.headHash();
  }

  durable(seq: number): Promise<void> {
    return this.writer.durable(seq);
  }

  async recover(exchange: Exchange): Promise<void> {
    if (this.recovered !== null) throw new Error('persistence: recover runs once, at startup');
    const backfill = (await historyComplete(await this.session.get())) ? undefined : new HistoryBackfill(this.pool, this.logger);
    const head = await recoverExchange(this.pool, exchange, this.logger, { useSnapshots: !this.ignoreSnapshots, ...(backfill === undefined ? {} : { backfill }) });
    this.adopt(exchange, head);
    await this.history.messagesCached();
  }

  /**
   * Continues writing after a head this exchange already holds: a standby that folded the log while it
   * followed it, promoted once it took the writer lock.
   */
  adopt(exchange: Exchange, head: RecoveredHead): void {
    if (this.recovered !== null) throw new Error('persistence: the head is set once');
    this.writer.resume(head.seq, head.hash);
    this.log.resume(head.seq);
    this.feed.follow(exchange.state, head.seq);
    this.history.follow(exchange.state);
    this.snapshotter.attach(exchange.state, head.snapshotSeq);
    this.recovered = head;
    this.logger.info(
      { seq: head.seq, snapshot_seq: head.snapshotSeq, folded: head.folded, snapshot_ms: Math.round(head.snapshotMs), fold_ms: Math.round(head.foldMs) },
      'event log recovered from PostgreSQL',
    );
  }

  /**
   * Committed events come from the database (COPY, streamed), the ones still queued from memory, so an
   * export is complete up to the head at the moment it started.
   */
  async *readEvents(afterSeq: number): AsyncIterable<ExchangeEvent> {
    const head = this.log.headSeq;
    let last = Math.max(0, afterSeq);
    while (last < head) {
      const memory = this.writer.memoryAfter(last);
      if (memory !== null) {
        for (const event of memory) {
          if (event.seq > head) return;
          yield event;
        }
        return;
      }
      const before = last;
      for await (const { event } of streamStoredEvents(this.pool, last, Math.min(head, this.writer.durableSeq))) {
        yield event;
        last = event.seq;
      }
      if (last === before) throw new Error(`readEvents: the database returned nothing after seq ${last}, though seq ${this.writer.durableSeq} was committed`);
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.writer.close();
      await this.history.close();
      await this.snapshotter.close();
      await this.session.close();
      await this.pool.end();
    })();
    return this.closing;
  }
}

/**
 * Connects, takes the log's lock and migrates. Fails at once, with a message that says why, when the
 * database cannot be reached or another instance holds the log.
 */
export async function openPostgresPersistence(config: Config, logger: Logger, options: PostgresPersistenceOptions = {}): Promise<PostgresPersistence> {
  return openOnSession(new WriterSession(config.databaseUrl), config, logger, options);
}

/** As openPostgresPersistence, on a session given (a promoted standby's, which already holds the lock). */
export async function openOnSession(session: WriterSession, config: Config, logger: Logger, options: PostgresPersistenceOptions = {}): Promise<PostgresPersistence> {
  let epoch: string;
  try {
    const client = await session.get();
    const applied = await migrate(client);
    if (applied.length > 0) logger.info({ versions: applied }, 'database migrated');
    epoch = await readEpoch(client);
  } catch (err) {
    await session.close();
    throw err;
  }
  const pool = new pg.Pool({ ...clientConfig(config.databaseUrl, 'exchange-reader'), max: 4, idleTimeoutMillis: 30_000 });
  // An idle pooled connection that breaks is simply dropped by the pool.
  pool.on('error', () => {});
  const writerOptions: BatchWriterOptions = {
    batchSize: config.postgresWriteBatchSize,
    flushIntervalMs: config.postgresWriteFlushIntervalMs,
    queueCapacity: config.postgresWriteQueueCapacity,
    retryBackoffMs: config.postgresWriteRetryBackoffMs,
    flushTimeoutMs: options.flushTimeoutMs ?? 10_000,
    closeTimeoutMs: options.closeTimeoutMs ?? 10_000,
  };
  const writer = new BatchWriter(session, writerOptions, logger, { seq: 0, hash: GENESIS_HASH });
  const snapshotter = new Snapshotter(config.databaseUrl, config.snapshotEveryEvents, logger, (seq) => writer.durable(seq));
  return new PostgresPersistence({ epoch, databaseUrl: config.databaseUrl, session, pool, writer, snapshotter, logger, ignoreSnapshots: options.ignoreSnapshots === true });
}
