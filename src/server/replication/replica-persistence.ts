// Persistence of a follower or standby: it reads the log (the newest snapshot and the events after it,
// hash chain verified, at start; then whatever the follower folds) and writes nothing. A standby's
// promotion hands it a PostgreSQL persistence that holds the writer lock, and from then on everything
// (status, capacity, durability, exports) is that writer's.
import pg from 'pg';
import type { Exchange } from '../../commands/exchange.ts';
import { GENESIS_HASH } from '../../events/hash.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Persistence, PersistenceStatus } from '../persistence/persistence.ts';
import { clientConfig, connectClient } from '../persistence/postgres/connection.ts';
import { streamStoredEvents } from '../persistence/postgres/event-stream.ts';
import type { PostgresPersistence } from '../persistence/postgres/postgres-persistence.ts';
import { recoverExchange, type RecoveredHead } from '../persistence/postgres/recovery.ts';
import { checkFollowableLog } from './followable-log.ts';
import { ReplicaLog } from './replica-log.ts';
import { PostgresHistory } from '../history/postgres-history.ts';

/** What the follower reports for the persistence part of /health and the admin state. */
export interface ReplicaFigures {
  readonly connected: boolean;
  readonly foldedSeq: number;
  readonly lastError: string | null;
}

export class ReplicaPersistence implements Persistence {
  readonly backend = 'postgres' as const;
  readonly epoch: string;
  readonly log = new ReplicaLog();
  readonly pool: pg.Pool;
  /** The history in the database: everything this node folded is in it already (the leader wrote it). */
  readonly history: PostgresHistory;
  private readonly logger: Logger;
  private leader: PostgresPersistence | null = null;
  private recovered: RecoveredHead | null = null;
  /** Set by the follower: how its reading goes. */
  figures: () => ReplicaFigures = () => ({ connected: true, foldedSeq: this.log.headSeq, lastError: null });

  constructor(epoch: string, pool: pg.Pool, logger: Logger, databaseUrl: string) {
    this.epoch = epoch;
    this.pool = pool;
    this.logger = logger;
    this.history = new PostgresHistory({ databaseUrl, feed: null, logger });
  }

  get recovery(): RecoveredHead | null {
    return this.recovered;
  }

  /** The writer's persistence once promoted, else null. */
  get writer(): PostgresPersistence | null {
    return this.leader;
  }

  status(): PersistenceStatus {
    if (this.leader !== null) return this.leader.status();
    const f = this.figures();
    return {
      backend: 'postgres',
      mode: f.connected ? 'ok' : 'retrying',
      queue_depth: 0,
      in_flight_ops: 0,
      total_enqueued: 0,
      total_flushes: 0,
      last_error: f.lastError,
      durable_seq: f.foldedSeq,
    };
  }

  /** Set by the follower: the chain hash of the last event it folded. */
  foldedHash: () => string = () => this.recovered?.hash ?? GENESIS_HASH;

  headHash(): string {
    return this.leader === null ? this.foldedHash() : this.leader.headHash();
  }

  capacity(): Promise<void> | null {
    return this.leader === null ? null : this.leader.capacity();
  }

  durable(seq: number): Promise<void> {
    // Everything a follower holds was read back from the database: it is durable already.
    return this.leader === null ? Promise.resolve() : this.leader.durable(seq);
  }

  async recover(exchange: Exchange): Promise<void> {
    if (this.recovered !== null) throw new Error('persistence: recover runs once, at startup');
    const head = await recoverExchange(this.pool, exchange, this.logger);
    this.log.foldedTo(head.seq);
    this.history.follow(exchange.state);
    await this.history.messagesCached();
    this.recovered = head;
    this.logger.info({ seq: head.seq, snapshot_seq: head.snapshotSeq, folded: head.folded, fold_ms: Math.round(head.foldMs) }, 'event log folded from PostgreSQL (following)');
  }

  /** Promotion: the writer's persistence, already continuing from this exchange's head. */
  promote(leader: PostgresPersistence): void {
    this.leader = leader;
    this.log.writeTo(leader.log);
    this.history.useFeed(leader.feed);
  }

  async *readEvents(afterSeq: number): AsyncIterable<ExchangeEvent> {
    if (this.leader !== null) {
      yield* this.leader.readEvents(afterSeq);
      return;
    }
    // Never past what this node folded: an export shows the state it serves.
    const head = this.log.headSeq;
    if (afterSeq >= head) return;
    for await (const { event } of streamStoredEvents(this.pool, Math.max(0, afterSeq), head)) yield event;
  }

  async close(): Promise<void> {
    if (this.leader !== null) await this.leader.close();
    await this.history.close();
    await this.pool.end();
  }
}

/** Connects, checks the database holds a log this build can follow, and opens the reader pool. */
export async function openReplicaPersistence(config: Config, logger: Logger): Promise<ReplicaPersistence> {
  const client = await connectClient(config.databaseUrl, 'exchange-follower');
  let epoch: string;
  try {
    epoch = await checkFollowableLog(client, config.databaseUrl);
  } finally {
    await client.end().catch(() => {});
  }
  const pool = new pg.Pool({ ...clientConfig(config.databaseUrl, 'exchange-follower'), max: 4, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {});
  return new ReplicaPersistence(epoch, pool, logger, config.databaseUrl);
}
