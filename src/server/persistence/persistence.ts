// Persistence behind one interface, with two implementations: in memory (the default) and
// PostgreSQL. The exchange appends to `log` synchronously on its one thread; a durable
// implementation queues the event and writes it in the background.
import type { EventLog } from '../../events/event-log.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import type { Exchange } from '../../commands/exchange.ts';
import type { History } from '../history/history.ts';

export type PersistenceMode = 'disabled' | 'ok' | 'retrying' | 'backpressured' | 'stopped';

/** The full persistence object of GET /api/v1/admin/state; /health shows the first four fields and last_error. */
export interface PersistenceStatus {
  readonly backend: 'in_memory' | 'postgres';
  readonly mode: PersistenceMode;
  readonly queue_depth: number;
  readonly in_flight_ops: number;
  readonly total_enqueued: number;
  readonly total_flushes: number;
  readonly last_error: string | null;
  /** Extra figures an operator wants when the writer is slow; absent for in memory. */
  readonly flush_latency_ms?: { readonly last: number | null; readonly p50: number | null; readonly p99: number | null; readonly max: number | null };
  readonly durable_seq?: number;
}

export type FlushListener = (events: number, ms: number) => void;

export interface Persistence {
  readonly backend: 'in_memory' | 'postgres';
  /**
   * Names the log's lineage: it stays the same across restarts for as long as book sequences continue
   * (a durable log), and differs whenever they start again (every start of an in-memory server).
   */
  readonly epoch: string;
  /** The log the exchange appends to. */
  readonly log: EventLog;
  /** Where the history lives (src/server/history/): with the log, in memory or in the database. */
  readonly history: History;
  status(): PersistenceStatus;
  /**
   * Resolves when the writer can take another event. The service awaits it before admitting a
   * command, in arrival order, which is how a full queue holds new commands back (backpressure).
   */
  capacity(): Promise<void> | null;
  /** The log's chain hash at its head, H(previous ‖ canonical event) as replay verifies it; the genesis hash when empty. */
  headHash(): string;
  /** Resolves once the event with this seq is durable (at once for in memory). */
  durable(seq: number): Promise<void>;
  /** Folds the stored state into a fresh exchange at startup. */
  recover(exchange: Exchange): Promise<void>;
  /** Events with seq > afterSeq, oldest first, streamed (for the admin export and replay). */
  readEvents(afterSeq: number): AsyncIterable<ExchangeEvent>;
  /** Calls `listener` after every committed batch with its event count and write time (durable backends). */
  observeFlushes?(listener: FlushListener): void;
  /** Flushes what is queued and stops the writer. */
  close(): Promise<void>;
}
