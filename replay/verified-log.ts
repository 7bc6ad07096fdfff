// A log read through the pipeline and verified as it is read: every record well formed (unless the
// caller has verified these very bytes before), seq gap-free from 1, times never going back, every
// chain hash. The reading every replay command shares (rebuild.ts), and the practice tool's (practice/).
//
// The stages overlap (src/server/persistence/pipeline/): the source is read in chunks of whole lines,
// worker threads check every chain link, and this thread parses each chunk in one JSON.parse and checks
// every event's shape. A chunk with anything wrong in it is re-read record by record by the sequential
// verifier, which names the first fault as it always has.
import { GENESIS_HASH } from '../src/events/hash.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { decodeEventRow } from '../src/server/persistence/postgres/copy-text.ts';
import { copyRows } from '../src/server/persistence/postgres/event-stream.ts';
import { checkedEvents, parsedEvents, processedChunks } from '../src/server/persistence/pipeline/chunk-pipeline.ts';
import type { ChunkFormat } from '../src/server/persistence/pipeline/chunk-work.ts';
import { ndjsonBytes, postgresBytes, recordOf, type RawRecord } from './log-source.ts';
import { LogFault, LogVerifier } from './verify.ts';

export interface LogSourceOptions {
  readonly file?: string | undefined;
  readonly database?: string | undefined;
  /** Pipeline worker threads (default: one per core but one); bytes per chunk (tests use small ones). */
  readonly workers?: number;
  readonly chunkBytes?: number;
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

/** A source read again no longer holds what the first read verified. */
export class LogChanged extends LogFault {}

export class VerifiedLog {
  readonly verifier = new LogVerifier();
  /** Set when `within` refused an event: the batches ended there. */
  stoppedEarly = false;
  /** The chain hash at the end of every batch handed out, by the batch's last seq: what a second read must meet (again). */
  readonly checkpoints = new Map<number, string>();
  private readonly o: LogSourceOptions;

  constructor(o: LogSourceOptions) {
    this.o = o;
  }

  /**
   * The log's events in order, a chunk's worth at a time, each batch verified before it is handed out
   * (LogFault names the first fault). With `within`, the first event past the stopping point is still
   * checked (a fault in it is named) but neither handed out nor taken by the verifier, and the batches
   * end there. `shapes: false` skips the shape check of chunks the workers vouched for: only for bytes
   * the caller checked in full before and proves unchanged (their chain hashes equal the first read's).
   */
  async *batches(within?: (event: RecordedEvent) => boolean, shapes = true): AsyncGenerator<readonly RecordedEvent[]> {
    const o = this.o;
    const format: ChunkFormat = o.file !== undefined ? 'ndjson' : 'copy';
    const bytes = o.file !== undefined ? ndjsonBytes(o.file) : o.database !== undefined ? postgresBytes(o.database) : null;
    if (bytes === null) throw new Error('verified log: no source');
    const verifier = this.verifier;
    let line = 1;
    const chunks = processedChunks(bytes, {
      format,
      startHash: GENESIS_HASH,
      validate: shapes,
      ...(o.workers === undefined ? {} : { workers: o.workers }),
      ...(o.chunkBytes === undefined ? {} : { chunkBytes: o.chunkBytes }),
    });
    for await (const chunk of chunks) {
      const firstLine = line;
      line += chunk.lines;
      const events = chunk.ok ? (shapes ? checkedEvents(chunk) : parsedEvents(chunk)) : null;
      // A chunk that holds the stopping point is read record by record, which stops exactly there.
      const last = events === null ? undefined : events[events.length - 1];
      if (events !== null && (last === undefined || within === undefined || within(last)) && verifier.acceptVerified(events, chunk.prevHash, chunk.lastHash)) {
        if (events.length > 0) this.checkpoints.set(verifier.seq, verifier.headHash);
        yield events;
        continue;
      }
      const batch: RecordedEvent[] = [];
      try {
        for (const record of recordsOf(format, chunk.bytes, firstLine)) {
          const event = within === undefined ? verifier.check(record) : verifier.check(record, within);
          if (event === null) {
            this.stoppedEarly = true;
            break;
          }
          batch.push(event);
        }
      } catch (err) {
        // The events before the fault go out first: a fault the caller finds in one of them (an event that
        // cannot be applied) is the first one, and is named.
        if (batch.length > 0) yield batch;
        throw err;
      }
      if (batch.length > 0) {
        this.checkpoints.set(verifier.seq, verifier.headHash);
        yield batch;
      }
      if (this.stoppedEarly) return;
    }
  }

  /**
   * The source read a second time, after `first` read it all: the same batches, each proven to be the
   * same bytes by ending on the chain hash the first read had there (LogChanged otherwise), so their
   * shapes are not checked again. Ends where the first read ended.
   */
  static async *again(o: LogSourceOptions, first: VerifiedLog): AsyncGenerator<readonly RecordedEvent[]> {
    const log = new VerifiedLog(o);
    const end = first.verifier.seq;
    if (end === 0) return;
    for await (const batch of log.batches(undefined, false)) {
      const seq = log.verifier.seq;
      if (first.checkpoints.get(seq) !== log.verifier.headHash) throw new LogChanged(seq, 'the log changed since it was verified (its chain hash here is not the one the first read had)');
      yield batch;
      if (seq >= end) return;
    }
    throw new LogChanged(log.verifier.seq + 1, 'the log ends before where it ended when it was verified');
  }
}
