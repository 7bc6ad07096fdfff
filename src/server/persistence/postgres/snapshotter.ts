// Background snapshots every SNAPSHOT_EVERY_EVENTS events. The trading thread only names the seq of a
// snapshot (its head between two commands): the state is built, serialized, hashed and written by the
// snapshot worker (snapshot-worker.ts), which folds the committed log into a shadow state of its own.
// So a snapshot stalls trading by microseconds whatever the size of the state, and the request waits
// until the seq is committed, since the worker reads the log from the database.
import { Worker } from 'node:worker_threads';
import type { ExchangeState } from '../../../projections/exchange-state.ts';
import type { Logger } from '../../logger.ts';
import { errorText } from './connection.ts';
import type { SnapshotReply, SnapshotRequest, SnapshotWorkerData } from './snapshot-worker.ts';

export interface SnapshotFigures {
  readonly seq: number;
  /** How long the trading thread was held to take it. */
  readonly blockedMs: number;
  /** The snapshot's text, and what is stored of it (gzipped). */
  readonly bytes: number;
  readonly storedBytes: number;
  /** From the request to the committed row. */
  readonly totalMs: number;
  /** Events the worker folded to bring its shadow state to seq. */
  readonly folded: number;
}

const WORKER_URL = new URL('./snapshot-worker.ts', import.meta.url);

export class Snapshotter {
  private readonly databaseUrl: string;
  private readonly every: number;
  private readonly logger: Logger;
  private readonly durable: (seq: number) => Promise<void>;
  private state: ExchangeState | null = null;
  private lastSeq = 0;
  private pending: Promise<void> | null = null;
  private closed = false;
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly replies = new Map<number, { resolve: (r: SnapshotReply) => void; reject: (e: Error) => void }>();
  last: SnapshotFigures | null = null;

  constructor(databaseUrl: string, every: number, logger: Logger, durable: (seq: number) => Promise<void>) {
    this.databaseUrl = databaseUrl;
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

  /** Takes and writes a snapshot of the state as it is now; resolves once it is stored. */
  async snapshotNow(): Promise<SnapshotFigures> {
    while (this.pending !== null) await this.pending;
    const run = this.take();
    this.pending = run.catch(() => {}).finally(() => (this.pending = null));
    await run;
    if (this.last === null) throw new Error('snapshot not taken: the snapshotter is closed or not attached');
    return this.last;
  }

  private ensureWorker(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(WORKER_URL, { workerData: { databaseUrl: this.databaseUrl } satisfies SnapshotWorkerData });
    worker.on('message', (reply: SnapshotReply) => {
      const waiter = this.replies.get(reply.id);
      this.replies.delete(reply.id);
      waiter?.resolve(reply);
    });
    const gone = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiter of this.replies.values()) waiter.reject(err);
      this.replies.clear();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`snapshot worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private async take(): Promise<void> {
    const state = this.state;
    if (state === null || this.closed) return;
    // All the trading thread does: read the head between two commands.
    const started = performance.now();
    const seq = state.seq;
    const blockedMs = performance.now() - started;
    this.lastSeq = seq;
    if (seq === 0) return;
    await this.durable(seq);
    const id = this.nextId++;
    const worker = this.ensureWorker();
    const reply = await new Promise<SnapshotReply>((resolve, reject) => {
      this.replies.set(id, { resolve, reject });
      worker.postMessage({ id, seq, blockedMs } satisfies SnapshotRequest);
    });
    if (!reply.ok) throw new Error(reply.error);
    this.last = { seq: reply.seq, blockedMs, bytes: reply.bytes, storedBytes: reply.storedBytes, totalMs: performance.now() - started, folded: reply.folded };
    this.logger.info({ seq: reply.seq, blocked_ms: Math.round(blockedMs * 1000) / 1000, bytes: reply.bytes, stored_bytes: reply.storedBytes, folded: reply.folded, total_ms: Math.round(this.last.totalMs) }, 'snapshot written');
  }

  /** Waits for a snapshot being written; none start after this. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pending;
    const worker = this.worker;
    this.worker = null;
    if (worker !== null) {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('close');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await worker.terminate();
    }
  }
}
