// One node of a cluster over one PostgreSQL log (ROLE leader, follower or standby): what it admits,
// how it follows the log, how a standby becomes the leader, and what /health says about it.
//
// - follower: folds the log (LogFollower) and refuses commands with not_leader.
// - standby: a follower that also tries, every STANDBY_LOCK_POLL_MS, to take the writer lock. Once it
//   holds it, nobody else can write: it folds to the end of the log and starts writing at the next seq.
// - leader (ROLE set): the moment its writer session is lost it stops admitting (another node may hold
//   the lock now); it admits again only after taking the lock back on a log whose head is its own.
import type pg from 'pg';
import type { Exchange } from '../../commands/exchange.ts';
import type { AdmissionClock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Persistence } from '../persistence/persistence.ts';
import { connectClient, errorText } from '../persistence/postgres/connection.ts';
import { LOG_LOCK_KEY, LogLockedError } from '../persistence/postgres/log-lock.ts';
import { openOnSession, type PostgresPersistence } from '../persistence/postgres/postgres-persistence.ts';
import { WriterSession } from '../persistence/postgres/writer-session.ts';
import type { ExchangeService } from '../service.ts';
import { Leadership } from './leadership.ts';
import { LogFollower } from './log-follower.ts';
import { ReplicaPersistence } from './replica-persistence.ts';

export interface ClusterHealth {
  readonly role: 'leader' | 'follower' | 'standby';
  /** The seq of the newest event this node holds (folded or written). */
  readonly seq: number;
  /** The newest seq this node knows the log holds. */
  readonly head_seq: number;
  readonly lag_events: number;
  readonly lag_ms: number;
  /** A leader that stopped admitting says why. */
  readonly fenced?: string;
}

export interface ClusterParts {
  readonly config: Config;
  readonly logger: Logger;
  readonly exchange: Exchange;
  readonly persistence: Persistence;
  readonly clock: AdmissionClock;
  /** The log can no longer be vouched for, or another node took the lock: the process must end. */
  readonly onFatal: (err: Error) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ClusterNode {
  readonly leadership: Leadership;
  private readonly parts: ClusterParts;
  private follower: LogFollower | null = null;
  private closed = false;
  private relocking = false;
  private lockClient: pg.Client | null = null;
  private standbyLoop: Promise<void> | null = null;

  constructor(parts: ClusterParts) {
    this.parts = parts;
    this.leadership = new Leadership(parts.config.role, parts.config.leaderUrl);
  }

  /** Starts following (and, for a standby, waiting for the lock), once the service exists. */
  start(service: ExchangeService): void {
    const { config, persistence } = this.parts;
    if (persistence instanceof ReplicaPersistence) {
      const recovered = persistence.recovery;
      if (recovered === null) throw new Error('cluster: start after recover');
      const follower = new LogFollower({
        databaseUrl: config.databaseUrl,
        pool: persistence.pool,
        service,
        log: persistence.log,
        head: { seq: recovered.seq, hash: recovered.hash },
        pollIntervalMs: config.followerPollIntervalMs,
        logger: this.parts.logger,
        onFatal: this.parts.onFatal,
      });
      persistence.figures = () => follower.figures();
      persistence.foldedHash = () => follower.hash;
      follower.start();
      this.follower = follower;
      if (config.role === 'standby') this.standbyLoop = this.waitForLock(persistence, follower);
    } else if (config.clustered && 'session' in persistence) {
      this.watchSession(persistence as PostgresPersistence);
    }
  }

  health(): ClusterHealth {
    const role = this.leadership.role;
    const seq = this.parts.exchange.seq;
    const follower = this.follower;
    if (role === 'leader' || follower === null) {
      const fenced = this.leadership.fence;
      return { role, seq, head_seq: seq, lag_events: 0, lag_ms: 0, ...(fenced === null ? {} : { fenced }) };
    }
    const f = follower.figures();
    return { role, seq, head_seq: f.headSeq, lag_events: f.lagEvents, lag_ms: f.lagMs };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.follower?.stop();
    const lock = this.lockClient;
    this.lockClient = null;
    if (lock !== null) await lock.end().catch(() => {});
    await this.standbyLoop?.catch(() => {});
  }

  // A standby: try the lock on a connection of its own; the lock comes free when the leader's session ends.
  private async waitForLock(replica: ReplicaPersistence, follower: LogFollower): Promise<void> {
    const { config, logger } = this.parts;
    while (!this.closed) {
      try {
        this.lockClient ??= await connectClient(config.databaseUrl, 'exchange-standby');
        const client = this.lockClient;
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1::bigint) as locked', [LOG_LOCK_KEY.toString()]);
        if (rows[0]?.locked === true && !this.closed) {
          this.lockClient = null;
          await this.promote(replica, follower, client);
          return;
        }
      } catch (err) {
        if (this.closed) return;
        logger.warn({ err: errorText(err) }, 'standby: trying the writer lock failed; trying again');
        const broken = this.lockClient;
        this.lockClient = null;
        broken?.end().catch(() => {});
      }
      await sleep(config.standbyLockPollMs);
    }
  }

  private async promote(replica: ReplicaPersistence, follower: LogFollower, client: pg.Client): Promise<void> {
    const { config, logger, exchange, clock } = this.parts;
    const started = performance.now();
    logger.warn({ seq: follower.seq }, 'standby: took the writer lock; folding the last committed events');
    try {
      await follower.stop();
      // Nobody else can write now: what the table holds is the whole log.
      await follower.drain();
      const session = new WriterSession(config.databaseUrl);
      session.adopt(client);
      const writer = await openOnSession(session, config, logger);
      const snapshotSeq = replica.recovery?.snapshotSeq ?? 0;
      writer.adopt(exchange, { seq: follower.seq, hash: follower.hash, snapshotSeq, folded: 0, snapshotMs: 0, foldMs: 0 });
      replica.promote(writer);
      if (exchange.state.time !== '') clock.advanceTo(exchange.state.time);
      this.leadership.promote();
      this.watchSession(writer);
      logger.warn({ seq: exchange.seq, ms: Math.round(performance.now() - started) }, 'standby: promoted; this node is the leader now');
    } catch (err) {
      await client.end().catch(() => {});
      // Holding the lock without being able to write or fold: give the lock back by ending the process,
      // rather than serve a state that may be behind the log.
      this.parts.onFatal(new Error(`standby: promotion failed: ${errorText(err)}`));
    }
  }

  private watchSession(writer: PostgresPersistence): void {
    writer.session.onLost = () => {
      if (this.closed) return;
      if (this.leadership.fence === null) this.parts.logger.error({ seq: this.parts.exchange.seq }, 'leader: lost the database session that holds the writer lock; no longer admitting commands');
      this.leadership.stopAdmitting('it lost the database session that holds the writer lock');
      void this.relock(writer);
    };
  }

  // A fenced leader takes the lock back if nobody else did, and admits again only if the log's head is
  // still the one it wrote (or a batch it had on its way).
  private async relock(writer: PostgresPersistence): Promise<void> {
    if (this.relocking) return;
    this.relocking = true;
    const { logger, exchange } = this.parts;
    let delay = 100;
    try {
      while (!this.closed) {
        await sleep(delay);
        delay = Math.min(2_000, delay * 2);
        if (this.closed) return;
        let client: pg.Client;
        try {
          client = await writer.session.get();
        } catch (err) {
          if (err instanceof LogLockedError) {
            this.parts.onFatal(new Error('another node holds the writer lock now: this node is no longer the leader'));
            return;
          }
          continue;
        }
        let head: { seq: string; hash: string } | undefined;
        try {
          head = (await client.query<{ seq: string; hash: string }>('select seq, hash from events order by seq desc limit 1')).rows[0];
        } catch {
          continue;
        }
        const dbSeq = head === undefined ? 0 : Number(head.seq);
        const ours = head === undefined ? writer.writer.durableSeq === 0 : writer.writer.hashOf(dbSeq) === head.hash;
        if (dbSeq < writer.writer.durableSeq || dbSeq > exchange.seq || !ours) {
          this.parts.onFatal(new Error(`the log's head (seq ${dbSeq}) is not this leader's (durable seq ${writer.writer.durableSeq}): another node wrote to it`));
          return;
        }
        this.leadership.resumeAdmitting();
        logger.warn({ seq: exchange.seq }, 'leader: holds the writer lock again; admitting commands');
        return;
      }
    } finally {
      this.relocking = false;
    }
  }
}

/** The persistence of a node whose role is not leader. */
export { openReplicaPersistence } from './replica-persistence.ts';
