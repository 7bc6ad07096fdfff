// Reads a log, verifies every record, and folds it (or re-runs it, for an audit) up to a stopping
// point: the pipeline of every replay command, and of the replay benchmark. The reading and verifying
// is verified-log.ts's; this folds what it hands out, in seq order.
import { Exchange, type ExchangeOptions } from '../src/commands/exchange.ts';
import { HistoryIndex } from '../src/projections/history/history-index.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { rerun } from './audit.ts';
import { readNdjson, readPostgres, type RawRecord } from './log-source.ts';
import { Progress } from './progress.ts';
import { LogFault, type LogVerifier } from './verify.ts';
import { VerifiedLog, type LogSourceOptions } from './verified-log.ts';

export interface RebuildOptions extends LogSourceOptions {
  readonly untilSeq?: number | undefined;
  readonly untilTime?: string | undefined;
  readonly audit?: boolean;
  readonly quiet?: boolean;
}

export function source(o: RebuildOptions): AsyncGenerator<RawRecord[]> {
  if (o.file !== undefined) return readNdjson(o.file);
  if (o.database !== undefined) return readPostgres(o.database);
  throw new Error('rebuild: no source');
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
  const progress = new Progress(o.audit === true ? 'audit' : 'replay', o.quiet !== true && process.stderr.isTTY === true);
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
  const log = new VerifiedLog(o);
  const stops = o.untilSeq !== undefined || o.untilTime !== undefined;
  for await (const events of log.batches(stops ? within : undefined)) {
    for (const event of events) apply(event);
    progress.tick(exchange.seq & ~1023);
  }
  progress.done(exchange.seq);
  return { exchange, history, verifier: log.verifier, stoppedEarly: log.stoppedEarly };
}
