// Reads a log, verifies every record, and folds it (or re-runs it, for an audit) up to a stopping
// point: the pipeline of every replay command, and of the replay benchmark.
//
// The stages overlap (src/server/persistence/pipeline/): the source is read in chunks of whole lines,
// worker threads check every chain link, and this thread parses each chunk in one JSON.parse, checks
// every event's shape (a replayed log is not trusted) and folds it in seq order. A chunk
// with anything wrong in it is re-read record by record by the sequential verifier, which names the
// first fault as it always has.
import { Exchange, type ExchangeOptions } from '../src/commands/exchange.ts';
import { GENESIS_HASH } from '../src/events/hash.ts';
import { HistoryIndex } from '../src/projections/history/history-index.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { decodeEventRow } from '../src/server/persistence/postgres/copy-text.ts';
import { copyRows } from '../src/server/persistence/postgres/event-stream.ts';
import { checkedEvents, processedChunks } from '../src/server/persistence/pipeline/chunk-pipeline.ts';
import type { ChunkFormat } from '../src/server/persistence/pipeline/chunk-work.ts';
import { rerun } from './audit.ts';
import { ndjsonBytes, postgresBytes, readNdjson, readPostgres, recordOf, type RawRecord } from './log-source.ts';
import { Progress } from './progress.ts';
import { LogFault, LogVerifier } from './verify.ts';

export interface RebuildOptions {
  readonly file?: string | undefined;
  readonly database?: string | undefined;
  readonly untilSeq?: number | undefined;
  readonly untilTime?: string | undefined;
  readonly audit?: boolean;
  readonly quiet?: boolean;
  /** Pipeline worker threads (default: one per core but one); bytes per chunk (tests use small ones). */
  readonly workers?: number;
  readonly chunkBytes?: number;
}

export function source(o: RebuildOptions): AsyncGenerator<RawRecord[]> {
  if (o.file !== undefined) return readNdjson(o.file);
  if (o.database !== undefined) return readPostgres(o.database);
  throw new Error('rebuild: no source');
}

/** The records of a chunk the workers did not vouch for, as the sequential verifier reads them. */
function recordsOf(format: ChunkFormat, bytes: Uint8Array, firstLine: number): RawRecord[] {
  // The byte-order mark kept, as the workers and the sequential reader keep it (chunk-work.ts).
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const records: RawRecord[] = [];
  if (format === 'copy') {
    for (const line of copyRows(text)) {
      try {
        const stored = decodeEventRow(line);
        records.push({ where: `seq ${stored.event.seq}`, value: stored.event, hash: stored.hash, text: stored.text });
      } catch (err) {
        // A row that does not decode, or whose seq column is not its event's: the verifier names it.
        records.push({ where: 'a stored row', value: null, hash: null, problem: `malformed stored row: ${err instanceof Error ? err.message : String(err)}` });
        break;
      }
    }
    return records;
  }
  let n = firstLine;
  for (const line of copyRows(text)) {
    if (line.trim() !== '') records.push(recordOf(line, n));
    n++;
  }
  return records;
}

/**
 * The state a replay folds into. No ring of recent deltas: nobody will resubscribe to a replay. Books
 * that keep every order since the last reset, flat, as the in-memory server's do: offline the whole
 * history is at hand anyway, and an order kept as a slot costs a fraction of a finished order's record in
 * the history's maps (OrderHistory.add and the records built for it were a fifth of a replay's main
 * thread, 2026-12-06).
 */
export const REPLAY_STATE: ExchangeOptions = { deltaRing: 0, recentOrders: Number.POSITIVE_INFINITY };

/**
 * Reads, verifies and folds (or re-runs) the log up to the stopping point. Offline, the whole history is
 * folded beside the live state (history-index.ts): the views print it, the audit checks client order
 * ids against it, and the state hash of the versions before 3 needs it.
 */
export async function rebuild(o: RebuildOptions): Promise<{ exchange: Exchange; history: HistoryIndex; verifier: LogVerifier; stoppedEarly: boolean }> {
  const exchange = new Exchange(REPLAY_STATE);
  const history = new HistoryIndex();
  history.follow(exchange.state);
  const verifier = new LogVerifier();
  const progress = new Progress(o.audit === true ? 'audit' : 'replay', o.quiet !== true && process.stderr.isTTY === true);
  const format: ChunkFormat = o.file !== undefined ? 'ndjson' : 'copy';
  const bytes = o.file !== undefined ? ndjsonBytes(o.file) : o.database !== undefined ? postgresBytes(o.database) : null;
  if (bytes === null) throw new Error('rebuild: no source');
  // The stopping point: the first event past it is checked (a fault in it is still named) but neither
  // taken by the verifier nor folded, so the head hash printed is the last folded event's.
  const within = (event: RecordedEvent): boolean => !((o.untilSeq !== undefined && event.seq > o.untilSeq) || (o.untilTime !== undefined && event.time > o.untilTime));
  const apply = (event: RecordedEvent): void => {
    if (o.audit === true) rerun(exchange, event, history);
    else {
      try {
        exchange.fold(event);
      } catch (err) {
        // Well formed and chained, yet impossible (a cancel of an order that never rested, say): the
        // log was written wrong or rewritten with its hashes recomputed.
        throw new LogFault(event.seq, `the event cannot be applied to the state before it: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  let stoppedEarly = false;
  let line = 1;
  const chunks = processedChunks(bytes, {
    format,
    startHash: GENESIS_HASH,
    validate: true,
    ...(o.workers === undefined ? {} : { workers: o.workers }),
    ...(o.chunkBytes === undefined ? {} : { chunkBytes: o.chunkBytes }),
  });
  reading: for await (const chunk of chunks) {
    const firstLine = line;
    line += chunk.lines;
    const events = chunk.ok ? checkedEvents(chunk) : null;
    // A chunk that holds the stopping point is read record by record, which stops exactly there.
    const last = events === null ? undefined : events[events.length - 1];
    if (events !== null && (last === undefined || within(last))) {
      if (verifier.acceptVerified(events, chunk.prevHash, chunk.lastHash)) {
        for (const event of events) apply(event);
        progress.tick(exchange.seq & ~1023);
        continue;
      }
    }
    for (const record of recordsOf(format, chunk.bytes, firstLine)) {
      const event = verifier.check(record, within);
      if (event === null) {
        stoppedEarly = true;
        break reading;
      }
      apply(event);
      progress.tick(event.seq);
    }
  }
  progress.done(exchange.seq);
  return { exchange, history, verifier, stoppedEarly };
}
