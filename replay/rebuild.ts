// Reads a log, verifies every record, and folds it (or re-runs it, for an audit) up to a stopping
// point: the pipeline of every replay command, and of the replay benchmark.
import { Exchange } from '../src/commands/exchange.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { rerun } from './audit.ts';
import { readNdjson, readPostgres, type RawRecord } from './log-source.ts';
import { Progress } from './progress.ts';
import { LogFault, LogVerifier } from './verify.ts';

export interface RebuildOptions {
  readonly file?: string | undefined;
  readonly database?: string | undefined;
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

/** Reads, verifies and folds (or re-runs) the log up to the stopping point. */
export async function rebuild(o: RebuildOptions): Promise<{ exchange: Exchange; verifier: LogVerifier; stoppedEarly: boolean }> {
  // No ring of recent deltas: nobody will resubscribe to a replay.
  const exchange = new Exchange({ deltaRing: 0 });
  const verifier = new LogVerifier();
  const progress = new Progress(o.audit === true ? 'audit' : 'replay', o.quiet !== true && process.stderr.isTTY === true);
  let stoppedEarly = false;
  reading: for await (const batch of source(o)) {
    for (const record of batch) {
      const event: RecordedEvent = verifier.check(record);
      if ((o.untilSeq !== undefined && event.seq > o.untilSeq) || (o.untilTime !== undefined && event.time > o.untilTime)) {
        stoppedEarly = true;
        break reading;
      }
      if (o.audit === true) rerun(exchange, event);
      else {
        try {
          exchange.fold(event);
        } catch (err) {
          // Well formed and chained, yet impossible (a cancel of an order that never rested, say): the
          // log was written wrong or rewritten with its hashes recomputed.
          throw new LogFault(event.seq, `the event cannot be applied to the state before it: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      progress.tick(event.seq);
    }
  }
  progress.done(exchange.seq);
  return { exchange, verifier, stoppedEarly };
}

