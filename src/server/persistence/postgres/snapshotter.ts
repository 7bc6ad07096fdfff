// Background snapshots every SNAPSHOT_EVERY_EVENTS events. Taking the picture has to be synchronous
// (it must see one state between two events), so it runs on the trading thread between commands; the
// hashing and the write happen off it, and the write waits until the snapshot's seq is committed.
import { webcrypto } from 'node:crypto';
import type pg from 'pg';
import type { ExchangeState } from '../../../projections/exchange-state.ts';
import { takeSnapshot } from '../../../projections/snapshot.ts';
import type { Logger } from '../../logger.ts';
import { errorText } from './connection.ts';
import { writeSnapshot } from './snapshot-store.ts';

export interface SnapshotFigures {
  readonly seq: number;
  /** How long takeSnapshot and JSON.stringify held the trading thread. */
  readonly blockedMs: number;
  readonly bytes: number;
  /** From the picture to the committed row. */
  readonly totalMs: number;
}

export class Snapshotter {
  private readonly pool: pg.Pool;
  private readonly every: number;
  private readonly logger: Logger;
  private readonly durable: (seq: number) => Promise<void>;
  private state: ExchangeState | null = null;
  private lastSeq = 0;
  private pending: Promise<void> | null = null;
  private closed = false;
  last: SnapshotFigures | null = null;

  constructor(pool: pg.Pool, every: number, logger: Logger, durable: (seq: number) => Promise<void>) {
    this.pool = pool;
    this.every = every;
    this.logger = logger;
    this.durable = durable;
  }

  attach(state: ExchangeState, lastSnapshotSeq: number): void {
    this.state = state;
    this.lastSeq = lastSnapshotSeq;
  }

  /** Called as each event is appended (before it is applied): schedules a snapshot when one is due. */
  onAppend(seq: number): void {
    if (this.every === 0 || this.state === null || this.pending !== null || this.closed) return;
    if (seq - this.lastSeq < this.every) return;
    // After this command has been applied, between two commands.
    this.pending = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.take())
      .catch((err: unknown) => this.logger.warn({ err: errorText(err) }, 'snapshot not written'))
      .finally(() => (this.pending = null));
  }

  /** Takes and writes a snapshot now (operators' tooling and tests); resolves once it is stored. */
  async snapshotNow(): Promise<SnapshotFigures> {
    while (this.pending !== null) await this.pending;
    const run = this.take();
    this.pending = run.catch(() => {}).finally(() => (this.pending = null));
    await run;
    if (this.last === null) throw new Error('snapshot not taken: the snapshotter is closed or not attached');
    return this.last;
  }

  private async take(): Promise<void> {
    const state = this.state;
    if (state === null || this.closed) return;
    const started = performance.now();
    const snapshot = takeSnapshot(state);
    const json = JSON.stringify(snapshot);
    const blockedMs = performance.now() - started;
    this.lastSeq = snapshot.seq;
    const bytes = Buffer.from(json, 'utf8');
    // WebCrypto digests on the thread pool, not on the trading thread.
    const sha256 = Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
    await this.durable(snapshot.seq);
    await writeSnapshot(this.pool, { seq: snapshot.seq, time: snapshot.time, json, sha256, blockedMs });
    this.last = { seq: snapshot.seq, blockedMs, bytes: bytes.length, totalMs: performance.now() - started };
    this.logger.info({ seq: snapshot.seq, blocked_ms: Math.round(blockedMs * 10) / 10, bytes: bytes.length, total_ms: Math.round(this.last.totalMs) }, 'snapshot written');
  }

  /** Waits for a snapshot being written; none start after this. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pending;
  }
}
