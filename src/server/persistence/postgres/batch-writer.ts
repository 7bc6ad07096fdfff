// The background batch writer. The exchange hands it each event synchronously (enqueue never blocks
// and never fails); it writes them in batches of up to POSTGRES_WRITE_BATCH_SIZE, each one COPY in one
// transaction on the session that holds the log's lock, with the history rows those events made (the
// history feed's: fills, finished orders, closed candle minutes) copied into their tables in the same
// transaction. A failed batch is retried after a backoff, first asking the database what it already
// holds, so no event is written twice and none is skipped; a batch's history rows commit or fail with
// its events.
import { finished } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { DomainError } from '../../../commands/errors.ts';
import type { ExchangeEvent } from '../../../events/types.ts';
import type { Logger } from '../../logger.ts';
import type { FlushListener, PersistenceMode } from '../persistence.ts';
import { errorText, sqlState } from './connection.ts';
import { encodeEvent, EVENT_COLUMNS, type EncodedEvent } from './copy-text.ts';
import { batchTransaction, LOG_CHANNEL } from './log-channel.ts';
import { MultiCopy, type CopyPayload } from './multi-copy.ts';
import type { HistoryFeed } from '../../history/history-feed.ts';
import { fillRows, HISTORY_TABLES, minuteRow, orderRow } from '../../history/history-rows.ts';
import { LatencyWindow, type LatencyFigures } from './latency-window.ts';
import { SeqWaiters } from './seq-waiters.ts';
import type { WriterSession } from './writer-session.ts';

export interface BatchWriterOptions {
  readonly batchSize: number;
  /** A batch that is not full goes out this long after its oldest event arrived (0: at once). */
  readonly flushIntervalMs: number;
  readonly queueCapacity: number;
  readonly retryBackoffMs: number;
  /** A flush still running after this long is abandoned (its connection dropped) and retried. */
  readonly flushTimeoutMs: number;
  /** How long close() keeps trying to write what is queued. */
  readonly closeTimeoutMs: number;
}

export interface WriterFigures {
  readonly mode: PersistenceMode;
  readonly queueDepth: number;
  readonly inFlight: number;
  readonly totalEnqueued: number;
  readonly totalFlushes: number;
  readonly lastError: string | null;
  readonly durableSeq: number;
  readonly latency: LatencyFigures;
}

interface Batch {
  readonly events: ExchangeEvent[];
  readonly hashes: string[];
  readonly rows: string[];
  /** Its COPY data, built while the batch before it was on its way (null: built when it is written). */
  readonly payload: Buffer[] | null;
  /** How many leading events of the batch are known to be committed. */
  done: number;
  /** A write of it failed: what the database holds must be checked before writing again. */
  uncertain: boolean;
}

/** The database does not hold what this writer knows it committed: writing on would corrupt the log. */
class LogDivergedError extends Error {}

const BACKPRESSURE_RATIO = 0.8;
/** Events encoded between two turns of the event loop while a batch is on its way (encodeWhile). */
const ENCODE_SLICE = 64;
/** Characters of COPY rows sent as one piece (under V8's large-object size, 128 KiB; see write). */
const PIECE_CHARS = 48 * 1024;

export class BatchWriter {
  private readonly session: WriterSession;
  private readonly options: BatchWriterOptions;
  private readonly logger: Logger;
  private readonly latency = new LatencyWindow();
  private readonly waiters = new SeqWaiters();

  private queue: ExchangeEvent[] = [];
  private queueHead = 0;
  private oldestAt = 0;
  /** Encodings of the first queued events, made while the previous batch was being written. */
  private ahead: EncodedEvent[] = [];
  /** The COPY data of the first batchSize events of `ahead`, once built (encodeWhile). */
  private aheadPayload: Buffer[] | null = null;
  private batch: Batch | null = null;
  /** Chain hash of the last event encoded. */
  private preparedHash: string;
  private durableSeqValue: number;
  private durableHash: string;
  private enqueuedSeq: number;

  /** Told of every committed batch: its events and how long writing it took (the metrics). */
  onFlush: FlushListener | null = null;
  /** Where the batches' history rows come from, and what is told once they are in the database. */
  private history: HistoryFeed | null = null;
  /** Batches written with history rows (the transaction then has a COPY per table), for tests. */
  batchesWithHistory = 0;
  /** Batches whose commit reply was lost but which the database turned out to hold (see reconcile). */
  unacknowledgedCommitsFound = 0;
  /** Batches whose COPY data was built while the one before was on its way (encodeWhile), for tests. */
  payloadsBuiltAhead = 0;
  private totalEnqueued = 0;
  private totalFlushes = 0;
  private lastError: string | null = null;
  private failing = false;
  private stoppedReason: string | null = null;
  private closing = false;

  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private wakeBackoff: (() => void) | null = null;
  private capacityWait: { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } | null = null;
  private idle: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(session: WriterSession, options: BatchWriterOptions, logger: Logger, head: { seq: number; hash: string }) {
    this.session = session;
    this.options = options;
    this.logger = logger;
    this.preparedHash = head.hash;
    this.durableSeqValue = head.seq;
    this.durableHash = head.hash;
    this.enqueuedSeq = head.seq;
  }

  /** Writes each batch's history rows with it, from `feed` (which is told what has committed). */
  attachHistory(feed: HistoryFeed): void {
    this.history = feed;
  }

  /** Continues after a recovered head (before any event was enqueued). */
  resume(seq: number, hash: string): void {
    if (this.queueLength > 0 || this.batch !== null) throw new Error('writer: resume after events were enqueued');
    this.preparedHash = hash;
    this.durableSeqValue = seq;
    this.durableHash = hash;
    this.enqueuedSeq = seq;
  }

  /**
   * The chain hash of the newest event enqueued: encodes what is queued and not encoded yet (work the
   * writer would do anyway), so the answer is exact whatever the writer is doing.
   */
  headHash(): string {
    this.encodeAhead(this.queueLength);
    return this.preparedHash;
  }

  get durableSeq(): number {
    return this.durableSeqValue;
  }

  /** The chain hash of the last committed event. */
  get durableChainHash(): string {
    return this.durableHash;
  }

  /**
   * The chain hash this writer computed for seq, when it is the last committed event or one of the batch
   * on its way (whose commit may have happened with its reply lost); null otherwise.
   */
  hashOf(seq: number): string | null {
    if (seq === this.durableSeqValue) return this.durableHash;
    const batch = this.batch;
    if (batch === null || batch.events.length === 0) return null;
    const i = seq - (batch.events[0] as ExchangeEvent).seq;
    return i >= 0 && i < batch.hashes.length ? (batch.hashes[i] as string) : null;
  }

  /** The writer gave up (see stop); nothing more is written. */
  get stopped(): boolean {
    return this.stoppedReason !== null;
  }

  private get queueLength(): number {
    return this.queue.length - this.queueHead;
  }

  /** Called on the trading thread for every accepted event: queue it and return at once. */
  enqueue(event: ExchangeEvent): void {
    if (event.seq !== this.enqueuedSeq + 1) throw new Error(`writer: expected seq ${this.enqueuedSeq + 1}, got ${event.seq}`);
    this.enqueuedSeq = event.seq;
    if (this.queueLength === 0) this.oldestAt = performance.now();
    this.queue.push(event);
    this.totalEnqueued++;
    this.kick();
  }

  /** null while the queue has room; else a promise that resolves once it has. */
  capacity(): Promise<void> | null {
    if (this.stoppedReason !== null) return Promise.reject(this.stoppedError());
    if (this.queueLength < this.options.queueCapacity) return null;
    if (this.capacityWait === null) {
      let resolve!: () => void;
      let reject!: (err: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Waiters await it; the rejection on a stop must not count as unhandled if none is waiting.
      promise.catch(() => {});
      this.capacityWait = { promise, resolve, reject };
    }
    return this.capacityWait.promise;
  }

  /** Resolves once the batch holding seq has committed. */
  durable(seq: number): Promise<void> {
    if (seq <= this.durableSeqValue) return Promise.resolve();
    if (this.stoppedReason !== null) return Promise.reject(this.stoppedError());
    const promise = this.waiters.wait(seq);
    // Someone waits on a queued event: group commit goes out now rather than after the interval.
    this.kick();
    return promise;
  }

  /** The events after afterSeq still held in memory (not yet committed), or null if some already left. */
  memoryAfter(afterSeq: number): ExchangeEvent[] | null {
    if (afterSeq < this.durableSeqValue) return null;
    const out: ExchangeEvent[] = [];
    if (this.batch !== null) {
      for (let i = this.batch.done; i < this.batch.events.length; i++) {
        const e = this.batch.events[i] as ExchangeEvent;
        if (e.seq > afterSeq) out.push(e);
      }
    }
    for (let i = this.queueHead; i < this.queue.length; i++) {
      const e = this.queue[i] as ExchangeEvent;
      if (e.seq > afterSeq) out.push(e);
    }
    return out;
  }

  mode(): PersistenceMode {
    if (this.stoppedReason !== null) return 'stopped';
    if (this.failing) return 'retrying';
    if (this.queueLength >= BACKPRESSURE_RATIO * this.options.queueCapacity) return 'backpressured';
    return 'ok';
  }

  figures(): WriterFigures {
    return {
      mode: this.mode(),
      queueDepth: this.queueLength,
      inFlight: this.batch === null ? 0 : this.batch.events.length - this.batch.done,
      totalEnqueued: this.totalEnqueued,
      totalFlushes: this.totalFlushes,
      lastError: this.lastError,
      durableSeq: this.durableSeqValue,
      latency: this.latency.figures(),
    };
  }

  /** Writes what is queued (retrying as usual for up to closeTimeoutMs), then stops. */
  async close(): Promise<void> {
    if (this.stoppedReason !== null) return;
    this.closing = true;
    this.kick();
    let timeout: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timeout = setTimeout(() => resolve('timeout'), this.options.closeTimeoutMs)));
    const outcome = await Promise.race([this.drained(), deadline]);
    clearTimeout(timeout);
    const left = this.queueLength + (this.batch === null ? 0 : this.batch.events.length - this.batch.done);
    if (outcome === 'timeout' && left > 0) {
      this.stop(`closed with ${left} events not written (seq ${this.durableSeqValue + 1}..${this.enqueuedSeq}): ${this.lastError ?? 'no error recorded'}`);
    } else {
      this.stop('closed', true);
    }
    // Let a flush that is still running end before the session is closed under it.
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private drained(): Promise<void> {
    if (this.queueLength === 0 && this.batch === null) return Promise.resolve();
    if (this.idle === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((res) => (resolve = res));
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }

  private stoppedError(): DomainError {
    return new DomainError('service_unavailable', `the event log is not being written: ${this.stoppedReason ?? 'stopped'}`);
  }

  /** A clean stop (close with everything written) keeps the last error as it was. */
  private stop(reason: string, clean = false): void {
    if (this.stoppedReason !== null) return;
    this.stoppedReason = reason;
    if (!clean) this.lastError = reason;
    this.clearTimers();
    this.wakeBackoff?.();
    const err = this.stoppedError();
    this.waiters.rejectAll(err);
    const wait = this.capacityWait;
    this.capacityWait = null;
    wait?.reject(err);
    if (!clean) this.logger.error({ reason, durable_seq: this.durableSeqValue, head_seq: this.enqueuedSeq }, 'event log writer stopped');
  }

  /** Starts a flush now, or arms the interval timer, depending on what is queued and who waits. */
  private kick(): void {
    if (this.running || this.stoppedReason !== null) return;
    const n = this.queueLength;
    if (n === 0) return;
    if (n >= this.options.batchSize || this.closing || this.urgent()) {
      // One turn of the event loop lets the other requests that arrived together join this batch.
      this.immediate ??= setImmediate(() => {
        this.immediate = null;
        void this.run();
      });
      return;
    }
    if (this.timer === null) {
      const delay = Math.max(0, this.options.flushIntervalMs - (performance.now() - this.oldestAt));
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.run();
      }, delay);
    }
  }

  private urgent(): boolean {
    const lowest = this.waiters.lowest;
    return lowest !== null && lowest <= this.enqueuedSeq;
  }

  private clearTimers(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.immediate !== null) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
  }

  private async run(): Promise<void> {
    if (this.running || this.stoppedReason !== null) return;
    this.clearTimers();
    this.running = true;
    try {
      let first = true;
      while (this.stoppedReason === null) {
        if (this.batch === null) {
          const n = this.queueLength;
          if (n === 0) break;
          // Straight on to the next batch only when it is full or someone is waiting for it;
          // otherwise the interval timer decides (kick, below).
          if (!first && n < this.options.batchSize && !this.closing && !this.urgent()) break;
          this.batch = this.prepare(Math.min(n, this.options.batchSize));
        }
        first = false;
        if (!(await this.flush(this.batch))) await this.backoff();
      }
    } finally {
      this.running = false;
    }
    if (this.queueLength === 0 && this.batch === null && this.idle !== null) {
      this.idle.resolve();
      this.idle = null;
    }
    this.kick();
  }

  private backoff(): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, this.options.retryBackoffMs);
      const self = this;
      function done() {
        clearTimeout(t);
        self.wakeBackoff = null;
        resolve();
      }
      this.wakeBackoff = done;
    });
  }

  /**
   * Encodes (chain hash and COPY row) up to `limit` queued events not encoded yet. Called while a
   * batch is on its way to the database, so this work overlaps the database's, and off the command's
   * path (the exchange only queues).
   */
  private encodeAhead(limit: number): void {
    const target = Math.min(this.queueLength, limit);
    let hash = this.preparedHash;
    while (this.ahead.length < target) {
      const encoded = encodeEvent(hash, this.queue[this.queueHead + this.ahead.length] as ExchangeEvent);
      this.ahead.push(encoded);
      hash = encoded.hash;
    }
    this.preparedHash = hash;
  }

  /** Takes n events off the queue, with their encodings. */
  private prepare(n: number): Batch {
    this.encodeAhead(n);
    const encoded = this.ahead.length === n ? this.ahead : this.ahead.slice(0, n);
    this.ahead = this.ahead.length === n ? [] : this.ahead.slice(n);
    // Built for a full batch of the first events ahead, which this batch is when it is full.
    const payload = n === this.options.batchSize ? this.aheadPayload : null;
    this.aheadPayload = null;
    const events = this.queue.slice(this.queueHead, this.queueHead + n);
    this.queueHead += n;
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 65_536) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    if (this.queueLength > 0) this.oldestAt = performance.now();
    const hashes: string[] = new Array(n);
    const rows: string[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const e = encoded[i] as EncodedEvent;
      hashes[i] = e.hash;
      rows[i] = e.row;
    }
    const wait = this.capacityWait;
    if (wait !== null && this.queueLength < this.options.queueCapacity) {
      this.capacityWait = null;
      wait.resolve();
    }
    return { events, hashes, rows, payload, done: 0, uncertain: false };
  }

  /** One attempt at a batch: true once it is all committed. */
  private async flush(batch: Batch): Promise<boolean> {
    const started = performance.now();
    let timedOut = false;
    const watchdog = setTimeout(() => {
      timedOut = true;
      this.session.discard();
    }, this.options.flushTimeoutMs);
    try {
      await this.write(batch);
    } catch (err) {
      clearTimeout(watchdog);
      batch.uncertain = true;
      this.session.discard();
      const message = timedOut ? `flush timed out after ${this.options.flushTimeoutMs} ms` : errorText(err);
      const first = (batch.events[batch.done] as ExchangeEvent).seq;
      const last = (batch.events[batch.events.length - 1] as ExchangeEvent).seq;
      if (err instanceof LogDivergedError || permanent(err)) {
        this.stop(`writing seq ${first}..${last} failed and cannot be retried: ${message}`);
        return false;
      }
      if (!this.failing) this.logger.warn({ err: message, first_seq: first, last_seq: last }, 'event log flush failed; retrying');
      this.failing = true;
      this.lastError = `writing seq ${first}..${last} failed: ${message}`;
      return false;
    }
    clearTimeout(watchdog);
    const ms = performance.now() - started;
    this.latency.record(ms);
    this.totalFlushes++;
    this.onFlush?.(batch.events.length - batch.done, ms);
    if (this.failing) this.logger.info({ durable_seq: batch.events[batch.events.length - 1]?.seq }, 'event log writer recovered');
    this.failing = false;
    this.markDurable(batch, batch.events.length);
    this.batch = null;
    return true;
  }

  private async write(batch: Batch): Promise<void> {
    const client = await this.session.get();
    if (batch.uncertain) {
      await this.reconcile(batch);
      if (batch.done === batch.events.length) return;
    }
    const history = this.historyPayloads(batch);
    if (history !== null) {
      // The batch's history rows, each table's a COPY of its own, in the same one-query transaction.
      this.batchesWithHistory++;
      const copies = history.map((h) => `copy ${h.table} (${h.columns}) from stdin; `).join('');
      const last = (batch.events[batch.events.length - 1] as ExchangeEvent).seq;
      const text = `begin; notify ${LOG_CHANNEL}, '${last}'; copy events (${EVENT_COLUMNS}) from stdin; ${copies}commit`;
      const events: (string | Buffer)[] = batch.payload !== null && batch.done === 0 ? batch.payload : [];
      if (events.length === 0) {
        for (let i = batch.done; i < batch.rows.length; ) {
          const end = pieceEnd(batch.rows, i);
          events.push(batch.rows.slice(i, end).join(''));
          i = end;
        }
      } else this.payloadsBuiltAhead++;
      const multi = new MultiCopy(text, [events, ...history.map((h) => h.payload)]);
      client.query(multi);
      await this.encodeWhile(multi.done);
      await multi.done;
      return;
    }
    // The whole transaction is one query (batchTransaction): its BEGIN, NOTIFY, COPY and COMMIT go out
    // together and the database answers once, after the commit, where a BEGIN and a COMMIT of their own
    // were two more round trips a batch with both sides idle: 0.7 and 1.9 ms of a 12.4 ms batch here
    // (c1b624c; docs/benchmarks.md, PostgreSQL log). The stream finishes on the database's
    // ReadyForQuery, after the commit; an error anywhere (the COPY's, the commit's) fails it, the
    // session is discarded and the batch reconciled, as before. The notification still goes out with
    // the commit, never before it: a follower told of seq N finds it.
    const copy = client.query(copyFrom(batchTransaction((batch.events[batch.events.length - 1] as ExchangeEvent).seq, EVENT_COLUMNS)));
    // The rows go out in pieces of up to PIECE_CHARS. One string of the whole batch (~450 KB at 1,024
    // events) was a large object, and so was its bytes' buffer: memory mapped fresh for every batch and
    // given back after it, a fifth of the writer's time on a machine where a fresh page costs ~12 µs.
    // Pieces this size are born in the young generation, and their buffers come from memory the process
    // reuses.
    // A full batch whose rows were all encoded while the batch before was on its way had its COPY data
    // built then too (encodeWhile): the database, done with that batch, is not kept waiting while these
    // rows are joined and encoded (1.6 ms of a 11.4 ms batch here, with the database idle).
    if (batch.payload !== null && batch.done === 0) {
      this.payloadsBuiltAhead++;
      for (const piece of batch.payload) copy.write(piece);
      copy.end();
    } else {
      for (let i = batch.done; i < batch.rows.length; ) {
        const end = pieceEnd(batch.rows, i);
        copy.write(batch.rows.slice(i, end).join(''));
        i = end;
      }
      copy.end();
    }
    const committed = finished(copy);
    await this.encodeWhile(committed);
    await committed;
  }

  /**
   * Encodes the next batch while `pending` (this batch's COPY, then its commit) is on its way, a slice at a time, giving
   * the event loop a turn after each: the rest of the payload reaches the socket as the database reads
   * it, and the database's answer is seen as soon as it comes, so the commit is not held back. Encoding
   * the whole next batch in one go (7-9 ms here) kept the database waiting for the payload's tail and
   * then the commit: the two sides took turns instead of working at once.
   */
  private async encodeWhile(pending: Promise<unknown>): Promise<void> {
    let settled = false;
    const settle = (): void => {
      settled = true;
    };
    pending.then(settle, settle);
    const size = this.options.batchSize;
    while (!settled && this.ahead.length < Math.min(this.queueLength, size)) {
      this.encodeAhead(Math.min(this.ahead.length + ENCODE_SLICE, size));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // A full next batch encoded with time to spare: its COPY data too, a piece a turn. If the answer
    // comes before the last piece, the pieces built so far are dropped and write builds them then.
    if (settled || this.aheadPayload !== null || this.ahead.length < size) return;
    const rows = this.ahead.slice(0, size).map((e) => e.row);
    const pieces: Buffer[] = [];
    for (let i = 0; i < size && !settled; ) {
      const end = pieceEnd(rows, i);
      pieces.push(Buffer.from(rows.slice(i, end).join(''), 'utf8'));
      i = end;
      if (i === size) this.aheadPayload = pieces;
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * After a failure of unknown outcome (the commit may have happened with its reply lost): find out
   * how far the database got, and keep only the rest of the batch. The hash at the database's head
   * must be the one this writer computed, or the log is not the one this process holds.
   */
  private async reconcile(batch: Batch): Promise<void> {
    const client = await this.session.get();
    const { rows } = await client.query<{ seq: string; hash: string }>('select seq, hash from events order by seq desc limit 1');
    const dbSeq = rows[0] === undefined ? 0 : Number(rows[0].seq);
    const dbHash = rows[0]?.hash ?? null;
    const firstSeq = (batch.events[0] as ExchangeEvent).seq;
    const lastSeq = (batch.events[batch.events.length - 1] as ExchangeEvent).seq;
    if (dbSeq < this.durableSeqValue) throw new LogDivergedError(`the database holds events only up to seq ${dbSeq}, but seq ${this.durableSeqValue} was committed`);
    if (dbSeq > lastSeq) throw new LogDivergedError(`the database holds seq ${dbSeq}, beyond this writer's seq ${lastSeq}: another writer wrote to the log`);
    const expected = dbSeq < firstSeq ? this.durableHash : (batch.hashes[dbSeq - firstSeq] as string);
    if (dbSeq > 0 && dbHash !== expected) throw new LogDivergedError(`the stored hash at seq ${dbSeq} differs from this writer's: another writer wrote to the log`);
    if (dbSeq >= firstSeq && dbSeq - firstSeq + 1 > batch.done) {
      this.logger.info({ first_seq: firstSeq + batch.done, committed_through: dbSeq }, 'event log writer: a batch whose outcome was unknown had committed');
      this.unacknowledgedCommitsFound++;
      this.markDurable(batch, dbSeq - firstSeq + 1);
    }
    batch.uncertain = false;
  }

  private markDurable(batch: Batch, done: number): void {
    batch.done = done;
    this.durableSeqValue = (batch.events[done - 1] as ExchangeEvent).seq;
    this.durableHash = batch.hashes[done - 1] as string;
    this.history?.drop(this.durableSeqValue);
    this.waiters.release(this.durableSeqValue);
  }

  /**
   * The COPY data of the history rows of the batch's events not yet committed, a table at a time (only
   * tables with rows), or null when they made none (most batches of orders that do not trade).
   */
  private historyPayloads(batch: Batch): { table: string; columns: string; payload: CopyPayload }[] | null {
    if (this.history === null) return null;
    const from = batch.done === 0 ? (batch.events[0] as ExchangeEvent).seq - 1 : (batch.events[batch.done - 1] as ExchangeEvent).seq;
    const to = (batch.events[batch.events.length - 1] as ExchangeEvent).seq;
    const items = this.history.between(from, to);
    const tables: { table: string; columns: string; payload: CopyPayload }[] = [];
    const add = (i: number, rows: string[]): void => {
      if (rows.length === 0) return;
      const spec = HISTORY_TABLES[i] as (typeof HISTORY_TABLES)[number];
      tables.push({ table: spec.table, columns: spec.columns, payload: pieces(rows) });
    };
    add(0, items.events.map(fillRows));
    add(1, items.orders.map(orderRow));
    add(2, items.minutes.map((m) => minuteRow(m.minute, m.seq)));
    return tables.length === 0 ? null : tables;
  }
}

/**
 * Failures that retrying cannot fix: data the database refuses (class 22) or a schema that is not
 * there (class 42, e.g. a dropped table). Everything else (connection loss, timeouts, a database
 * restarting, a lock held by another session) is retried.
 */
function permanent(err: unknown): boolean {
  const state = sqlState(err);
  return state !== null && (state.startsWith('22') || state.startsWith('42'));
}

/** Rows joined into pieces of about PIECE_CHARS (see write). */
function pieces(rows: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; ) {
    const end = pieceEnd(rows, i);
    out.push(rows.slice(i, end).join(''));
    i = end;
  }
  return out;
}

/** Where the COPY piece that starts at rows[from] ends: as many rows as fit in PIECE_CHARS, at least one. */
function pieceEnd(rows: readonly string[], from: number): number {
  let chars = (rows[from] as string).length;
  let end = from + 1;
  while (end < rows.length && chars + (rows[end] as string).length <= PIECE_CHARS) chars += (rows[end++] as string).length;
  return end;
}
