// Recovery at startup: the newest valid snapshot, then every event after it folded in order while the
// hash chain is verified from the snapshot's link on. A gap or a broken link stops the start with the
// seq that is wrong: a service must not run on a log it cannot vouch for. A snapshot is only a shortcut:
// one that cannot be restored, or after which an event cannot be applied, is passed over for the next
// older one (or the whole log), and only an event that cannot be applied without any snapshot is the
// log's fault.
//
// The stages overlap (src/server/persistence/pipeline/): PostgreSQL streams the rows, worker threads
// frame them and check every chain link, and this thread parses each chunk in one JSON.parse and folds
// it. The events' shape is not validated here: the chain proves the text is what this exchange wrote
// (`replay verify` still validates everything, for logs from elsewhere).
import type pg from 'pg';
import type { Exchange } from '../../../commands/exchange.ts';
import { GENESIS_HASH, sha256Hex } from '../../../events/hash.ts';
import type { RecordedEvent } from '../../../events/upcasters/upcast.ts';
import { restoreLinesFrom } from '../../../projections/snapshot.ts';
import type { Logger } from '../../logger.ts';
import { parsedEvents, processedChunks } from '../pipeline/chunk-pipeline.ts';
import { errorText } from './connection.ts';
import { decodeEventRow } from './copy-text.ts';
import { copyRows, streamEventBytes } from './event-stream.ts';
import { newestSnapshot, readSnapshotLines, SnapshotAheadOfLog } from './snapshot-store.ts';
import type { HistoryBackfill } from '../../history/history-backfill.ts';

export interface RecoveredHead {
  readonly seq: number;
  readonly hash: string;
  /** The snapshot's seq (0 when recovery folded the whole log). */
  readonly snapshotSeq: number;
  /** Events folded after the snapshot. */
  readonly folded: number;
  readonly snapshotMs: number;
  readonly foldMs: number;
}

export class LogIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogIntegrityError';
  }
}

export interface RecoveryOptions {
  readonly useSnapshots?: boolean;
  /** Pipeline worker threads (default: one per core but one). */
  readonly workers?: number;
  /** Bytes per pipeline chunk (tests use small ones to cross many chunk boundaries). */
  readonly chunkBytes?: number;
  /**
   * The log's history tables are to be written from the fold (history-backfill.ts): recovery then folds
   * the whole log, whatever the snapshots.
   */
  readonly backfill?: HistoryBackfill;
}

/**
 * A snapshot recovery could not use: restoring it threw, or an event after it could not be applied to
 * the state it restored. Recovery starts over from an older one.
 */
class UnusableSnapshot extends Error {
  readonly seq: number;
  constructor(seq: number, why: string) {
    super(why);
    this.seq = seq;
  }
}

/**
 * Restores the newest usable snapshot into `exchange` (fresh) and folds every later event. A snapshot
 * found unusable is logged and recovery starts over (exchange.startOver) from the next older one, and at
 * last from the start of the log.
 */
export async function recoverExchange(pool: pg.Pool, exchange: Exchange, logger: Logger, options: RecoveryOptions = {}): Promise<RecoveredHead> {
  // Checked here, once: restoring into a state that is not fresh throws, which would read as a bad snapshot.
  if (exchange.seq !== 0) throw new Error('recovery needs a fresh exchange');
  const backfill = options.backfill;
  if (backfill !== undefined) {
    await backfill.begin(exchange.state);
    try {
      const head = await recoverFrom(pool, exchange, logger, options, 0);
      await backfill.end(head.seq);
      return head;
    } catch (err) {
      backfill.abandon();
      throw err;
    }
  }
  let below = options.useSnapshots === false ? 0 : Number.POSITIVE_INFINITY;
  for (;;) {
    try {
      return await recoverFrom(pool, exchange, logger, options, below);
    } catch (err) {
      if (!(err instanceof UnusableSnapshot)) throw err;
      logger.warn({ seq: err.seq, why: err.message }, 'snapshot passed over: recovering from an older one, or from the start of the log');
      exchange.startOver();
      below = err.seq;
    }
  }
}

/** One attempt: the newest valid snapshot below seq `below` (none when 0), then the events after it. */
async function recoverFrom(pool: pg.Pool, exchange: Exchange, logger: Logger, options: RecoveryOptions, below: number): Promise<RecoveredHead> {
  const started = performance.now();
  // Every event folded here is durable, and the orders it finished are in the history's tables: the
  // books' window of finished orders is for what the exchange decides from now on (order-store.ts).
  // Copying each finished order into the window cost recovery its share of bench:pg's pairs against
  // 1e23fee, which kept every order in place (0.954 of it, 2026-12-06). (A state recovery starts over
  // with is a new one: this is set for each attempt.)
  const orders = exchange.state.books.orders;
  orders.windowed(false);
  let seq = 0;
  let hash = GENESIS_HASH;
  let snapshotSeq = 0;
  if (below > 0) {
    const found = await newestSnapshot(pool, logger, below).catch((err: unknown) => {
      throw err instanceof SnapshotAheadOfLog ? new LogIntegrityError(err.message) : err;
    });
    if (found !== null) {
      try {
        // Restored as it is read; a snapshot whose content turns out damaged leaves a state that is
        // dropped whole (startOver), like one that does not restore.
        await restoreLinesFrom(exchange.state, readSnapshotLines(pool, found.seq));
        if (exchange.state.seq !== found.seq) throw new Error(`its content is of seq ${exchange.state.seq}, not its row's`);
      } catch (err) {
        throw new UnusableSnapshot(found.seq, `it cannot be restored: ${errorText(err)}`);
      }
      seq = snapshotSeq = found.seq;
      hash = found.chainHash;
    }
  }
  const snapshotMs = performance.now() - started;
  const foldStarted = performance.now();
  let folded = 0;
  const fold = (event: RecordedEvent) => {
    try {
      exchange.fold(event);
    } catch (err) {
      const why = `event seq ${event.seq} (${event.type}) cannot be applied`;
      // After a snapshot, the snapshot may be what is wrong, or the log: the whole log decides (a fault
      // of the log is then found once per snapshot kept, and named at last from the start of the log).
      if (snapshotSeq > 0) throw new UnusableSnapshot(snapshotSeq, `${why} to it (the snapshot or the log is wrong): ${errorText(err)}`);
      throw new LogIntegrityError(`${why}: ${errorText(err)}`);
    }
  };
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const pipeline = processedChunks(streamEventBytes(pool, seq), {
    format: 'copy',
    startHash: hash,
    validate: false,
    ...(options.workers === undefined ? {} : { workers: options.workers }),
    ...(options.chunkBytes === undefined ? {} : { chunkBytes: options.chunkBytes }),
  });
  for await (const chunk of pipeline) {
    const events = chunk.ok && chunk.prevHash === hash ? parsedEvents(chunk) : null;
    if (events !== null) {
      let contiguous = true;
      for (let i = 0; i < events.length; i++) {
        if ((events[i] as RecordedEvent).seq !== seq + 1 + i) {
          contiguous = false;
          break;
        }
      }
      if (contiguous) {
        for (const event of events) fold(event);
        seq += events.length;
        hash = chunk.lastHash;
        folded += events.length;
        await options.backfill?.flush(seq);
        continue;
      }
    }
    // Something is wrong in this chunk (or its link to the previous one): read it row by row to name
    // the first fault exactly.
    for (const line of copyRows(decoder.decode(chunk.bytes))) {
      let stored: ReturnType<typeof decodeEventRow>;
      try {
        stored = decodeEventRow(line);
      } catch (err) {
        // A row that does not decode, or whose seq column is not its event's seq, was altered.
        throw new LogIntegrityError(`the event log has a malformed row after seq ${seq}: ${errorText(err)}`);
      }
      const event = stored.event;
      if (event.seq !== seq + 1) throw new LogIntegrityError(`the event log has a gap: seq ${seq + 1} is missing (the next stored event is seq ${event.seq})`);
      // chainHash's definition over the stored canonical text: no re-serializing on the way in.
      const computed = sha256Hex(hash + stored.text);
      if (computed !== stored.hash) throw new LogIntegrityError(`the event log's hash chain is broken at seq ${event.seq}: the stored event or its hash was altered`);
      fold(event);
      seq = event.seq;
      hash = computed;
      folded++;
    }
    await options.backfill?.flush(seq);
  }
  orders.windowed(true);
  return { seq, hash, snapshotSeq, folded, snapshotMs, foldMs: performance.now() - foldStarted };
}
