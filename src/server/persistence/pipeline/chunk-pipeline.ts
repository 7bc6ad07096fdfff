// Reads a log's bytes, cuts them into chunks of whole lines and has worker threads frame and hash-check
// them, several chunks at once, while the caller parses, checks the shape of (for an untrusted source:
// checkedEvents) and folds the chunks already done, strictly in order. The stages overlap: reading (the
// source's I/O), hashing (the workers), parsing, checking and folding (the main thread). The shape
// check is the caller's because it needs the parsed events, which only the caller has: in a worker it
// would cost a parse of every event there. (The workers take NDJSON lines apart by scanning their
// structure, not parsing them: parsing every line there made the worker the bound on two cores, and so
// did checking shapes there; docs/benchmarks.md, Replay and "Tried and not kept".)
//
// A short log (up to 256 KiB) is processed on the calling thread: starting workers would cost more
// than they save. A longer one's first chunks are too, while the workers start (until one is ready).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RecordedEvent } from '../../../events/upcasters/upcast.ts';
import { processChunk, type ChunkFormat, type ChunkRequest, type ChunkResult } from './chunk-work.ts';
import { compiledEventCheck } from './compiled-event-check.ts';
import { wellFormedEvent } from './well-formed-event.ts';

export interface PipelineOptions {
  readonly format: ChunkFormat;
  /** The hash the first line chains from (the genesis, or a snapshot's link). */
  readonly startHash: string;
  /** Check each event's shape (an untrusted source): the chunk of a one-chunk log comes back validated; other chunks the caller checks with checkedEvents. */
  readonly validate: boolean;
  /** Worker threads (default: one per core but one, at least one, at most four). */
  readonly workers?: number;
  /** Bytes per chunk (default: by format, see defaultChunkBytes). */
  readonly chunkBytes?: number;
}

const WORKER_URL = new URL('./chunk-worker.ts', import.meta.url);

/**
 * Bytes per chunk by default. NDJSON: 64 KiB, so that a chunk's texts (the worker's decoded bytes and its
 * events' array text, the main thread's copy of that text) stay below V8's largest regular object (128
 * KiB) and are born in the young generation, whose pages are reused collection after collection; at 256
 * KiB each was a large object with memory of its own, mapped fresh and given back when collected, and a
 * replay touched 27% more fresh pages (0.155 against 0.113 an event, on a machine where a fresh page
 * costs ~12 µs) and ran 5-7% slower. COPY rows: 256 KiB, where recovery ran 2-5% faster than at 64 KiB
 * (the worker parses no row, and there are four times fewer chunks to hand over); measured 2026-11-26,
 * 322c2bf.
 */
function defaultChunkBytes(format: ChunkFormat): number {
  return format === 'ndjson' ? 64 * 1024 : 256 * 1024;
}
// Chunks handed out and not yet read by the caller, as bytes: each thread waits for the other less with
// a deeper queue (at three 256 KiB chunks both threads were idle 12-14% of a replay; 16 of them, 4 MiB,
// ran a 1,000,000-event replay 4-9% faster and a recovery 7-10%; 32 added nothing).
const IN_FLIGHT_BYTES = 4 * 1024 * 1024;
// Logs up to this size start no workers (the one chunk of the 256 KiB chunks before).
const INLINE_BYTES = 256 * 1024;

export function defaultWorkers(): number {
  return Math.min(4, Math.max(1, availableParallelism() - 1));
}

/** A pool of chunk workers, each taking chunks round robin; results come back per worker in order. */
class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, { resolve: (r: ChunkResult) => void; reject: (e: Error) => void }>();
  private failure: Error | null = null;
  private next = 0;
  /**
   * How many workers have loaded their modules (each adds one: chunk-worker.ts). Shared memory, not a
   * message: a message is seen only when the event loop turns, and a source with data buffered (a COPY
   * stream) is read and processed here for many chunks without a turn, while a ready worker waits.
   */
  private readonly started = new Int32Array(new SharedArrayBuffer(4));

  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_URL, { workerData: { started: this.started.buffer } });
      worker.on('message', (result: ChunkResult) => {
        const waiter = this.pending.get(result.id);
        this.pending.delete(result.id);
        waiter?.resolve(result);
      });
      worker.on('error', (err: Error) => this.fail(err));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`pipeline worker exited with code ${code}`));
      });
      this.workers.push(worker);
    }
  }

  /** Whether a worker takes chunks now. */
  get ready(): boolean {
    return Atomics.load(this.started, 0) > 0;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }

  submit(request: ChunkRequest): Promise<ChunkResult> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const worker = this.workers[this.next++ % this.workers.length] as Worker;
    return new Promise<ChunkResult>((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      worker.postMessage(request, [request.bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** A fresh copy of bytes, owning its ArrayBuffer alone (so it can be transferred). */
function own(source: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(source.subarray(start, end));
  return out;
}

/**
 * The chunks of a source, processed, in order. The caller must check each result: `ok` and
 * `prevHash` equal to the hash its previous chunk ended with (see chunk-work.ts). A result's `bytes`
 * are the caller's until it asks for the next result: then they are reused.
 */
export async function* processedChunks(source: AsyncIterable<Uint8Array>, options: PipelineOptions): AsyncGenerator<ChunkResult> {
  const chunkBytes = options.chunkBytes ?? defaultChunkBytes(options.format);
  const workerCount = options.workers ?? defaultWorkers();
  let pool: WorkerPool | null = null;
  const inFlight: Promise<ChunkResult>[] = [];
  // A log shorter than this is processed on the calling thread: starting workers would cost more than
  // they save (30-45 ms to a worker's first result). A caller that picks the chunk size (the tests, to
  // send short logs through the workers) gets them from its second chunk on.
  const inlineBytes = options.chunkBytes === undefined ? INLINE_BYTES : chunkBytes;
  // 4 MiB of chunks out (64 NDJSON chunks, 16 of COPY rows), at least eight per worker, at most 64.
  const maxInFlight = Math.min(64, Math.max(Math.ceil(IN_FLIGHT_BYTES / chunkBytes), 16, workerCount * 8));
  let id = 0;
  let context: Uint8Array | null = null;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let first = true;

  const request = (bytes: Uint8Array, ctx: Uint8Array | null): ChunkRequest => {
    const r: ChunkRequest = { id: id++, format: options.format, bytes, prev: first ? options.startHash : null, context: first ? null : ctx };
    first = false;
    return r;
  };
  // Chunk buffers are reused: each one goes to a worker and comes back with its result, and is free
  // again once the caller asks for the next result. A fresh chunk-sized buffer per chunk (and another for
  // joining the source's pieces) made the collector run inside postMessage, for the external memory
  // they added: 0.03 ms a post at the median, 0.7 ms at the 90th percentile, 6% of a recovery.
  const free: ArrayBuffer[] = [];
  let lent: ChunkResult | null = null;
  const take = (size: number): Uint8Array => {
    const buffer = free.pop() ?? new ArrayBuffer(chunkBytes);
    return new Uint8Array(buffer, 0, size);
  };
  const hand = (result: ChunkResult): ChunkResult => {
    const buffer = lent?.bytes.buffer;
    if (buffer instanceof ArrayBuffer && buffer.byteLength === chunkBytes) free.push(buffer);
    lent = result;
    return result;
  };
  // Drops the first n held bytes.
  const consume = (n: number): void => {
    heldBytes -= n;
    const rest: Uint8Array[] = [];
    for (const piece of held) {
      if (n >= piece.length) n -= piece.length;
      else {
        rest.push(n === 0 ? piece : piece.subarray(n));
        n = 0;
      }
    }
    held = rest;
  };
  // Cuts a chunk of about chunkBytes, ending at a newline, off the held bytes (everything at the end).
  const cut = (atEnd: boolean): ChunkRequest | null => {
    if (heldBytes === 0) return null;
    // The first chunkBytes held (all of them, at the end, when they fit), gathered into a buffer.
    const size = Math.min(heldBytes, chunkBytes);
    const gathered = take(size);
    let at = 0;
    for (const piece of held) {
      if (at === size) break;
      const n = Math.min(piece.length, size - at);
      gathered.set(n === piece.length ? piece : piece.subarray(0, n), at);
      at += n;
    }
    let end = atEnd && heldBytes <= chunkBytes ? size : gathered.lastIndexOf(10) + 1;
    let bytes: Uint8Array;
    if (end > 0) bytes = end === size ? gathered : new Uint8Array(gathered.buffer, 0, end);
    else {
      // A line longer than a chunk goes out whole.
      free.push(gathered.buffer as ArrayBuffer);
      const all = held.length === 1 ? (held[0] as Uint8Array) : Buffer.concat(held, heldBytes);
      end = all.indexOf(10, chunkBytes) + 1;
      if (end === 0) {
        if (!atEnd) return null;
        end = all.length;
      }
      bytes = own(all, 0, end);
    }
    const r = request(bytes, context);
    // The chunk's last line is the next chunk's context.
    const lastStart = bytes.lastIndexOf(10, bytes.length - 2) + 1;
    context = bytes.slice(lastStart);
    consume(end);
    return r;
  };

  try {
    for await (const piece of source) {
      held.push(piece);
      heldBytes += piece.length;
      // The workers start once the log is known to be longer than a short one.
      while (heldBytes >= chunkBytes && (pool !== null || heldBytes >= inlineBytes)) {
        const r = cut(false);
        if (r === null) break;
        pool ??= new WorkerPool(workerCount);
        if (!pool.ready && inFlight.length === 0) {
          // The workers are still starting: each loads its modules before it takes a chunk, 50-100 ms
          // on a 2-core machine, which this thread spent waiting for the first result (a fixed cost of
          // every replay and recovery: a sixth of a replay of 300,000 events). It frames and
          // hash-checks the chunks itself until one is ready; the shape check stays the caller's.
          yield hand(processChunk(r));
          continue;
        }
        inFlight.push(pool.submit(r));
        // Results strictly in order; a full pipeline waits for the oldest.
        while (inFlight.length >= maxInFlight) yield hand(await (inFlight.shift() as Promise<ChunkResult>));
      }
    }
    // Without a pool the log is short, processed here, shape included (with zod, which names a fault).
    for (let r = cut(true); r !== null; r = cut(true)) {
      if (pool === null) inFlight.push(Promise.resolve(processChunk(r, options.validate ? wellFormedEvent : undefined)));
      else if (!(pool as WorkerPool).ready && inFlight.length === 0) yield hand(processChunk(r));
      else inFlight.push((pool as WorkerPool).submit(r));
    }
    while (inFlight.length > 0) yield hand(await (inFlight.shift() as Promise<ChunkResult>));
  } finally {
    // Results nobody will read must not reject unhandled.
    for (const p of inFlight) p.catch(() => {});
    await pool?.close();
  }
}

/**
 * A chunk's events, parsed from the one array text its worker made; null when that text does not parse
 * (the workers take a line apart without parsing it: chunk-work.ts), when it parses to another number
 * of events than the chunk's lines held, or when COPY rows' seq columns are not their events' seqs. The caller then re-reads the chunk record by record.
 */
export function parsedEvents(chunk: ChunkResult): RecordedEvent[] | null {
  let events: unknown;
  try {
    events = JSON.parse(chunk.events);
  } catch {
    return null;
  }
  if (!Array.isArray(events) || events.length !== chunk.count) return null;
  // COPY rows: the worker checked their seq columns run on by one from firstSeq, and the caller checks the
  // events' seqs continue its log; the first event's seq being firstSeq makes every column its event's.
  if (!Number.isNaN(chunk.firstSeq) && events.length > 0 && (events[0] as RecordedEvent).seq !== chunk.firstSeq) return null;
  return events as RecordedEvent[];
}

/**
 * A chunk's events of an untrusted source, parsed, when its every event is well formed (checked here
 * unless the chunk came back validated already). Null when any event fails: the caller then re-reads
 * the chunk record by record, which names the fault.
 */
export function checkedEvents(chunk: ChunkResult): RecordedEvent[] | null {
  const events = parsedEvents(chunk);
  if (events === null) return null;
  if (chunk.validated) return events;
  for (let i = 0; i < events.length; i++) if (!compiledEventCheck(events[i])) return null;
  return events;
}
