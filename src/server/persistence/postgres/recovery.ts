// Recovery at startup: the newest valid snapshot, then every event after it folded in order while the
// hash chain is verified from the snapshot's link on. A gap or a broken link stops the start with the
// seq that is wrong: a service must not run on a log it cannot vouch for.
import type pg from 'pg';
import type { Exchange } from '../../../commands/exchange.ts';
import { GENESIS_HASH, sha256Hex } from '../../../events/hash.ts';
import { restoreSnapshot } from '../../../projections/snapshot.ts';
import type { Logger } from '../../logger.ts';
import { errorText } from './connection.ts';
import { streamStoredEvents } from './event-stream.ts';
import { loadNewestSnapshot } from './snapshot-store.ts';

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

export async function recoverExchange(pool: pg.Pool, exchange: Exchange, logger: Logger, options: { useSnapshots?: boolean } = {}): Promise<RecoveredHead> {
  const started = performance.now();
  let seq = 0;
  let hash = GENESIS_HASH;
  let snapshotSeq = 0;
  if (options.useSnapshots !== false) {
    const loaded = await loadNewestSnapshot(pool, logger);
    if (loaded !== null) {
      restoreSnapshot(exchange.state, loaded.snapshot);
      seq = snapshotSeq = loaded.snapshot.seq;
      hash = loaded.chainHash;
    }
  }
  const snapshotMs = performance.now() - started;
  const foldStarted = performance.now();
  let folded = 0;
  for await (const stored of streamStoredEvents(pool, seq)) {
    const event = stored.event;
    if (event.seq !== seq + 1) throw new LogIntegrityError(`the event log has a gap: seq ${seq + 1} is missing (the next stored event is seq ${event.seq})`);
    // chainHash's definition over the stored canonical text: no re-serializing on the way in.
    const computed = sha256Hex(hash + stored.text);
    if (computed !== stored.hash) throw new LogIntegrityError(`the event log's hash chain is broken at seq ${event.seq}: the stored event or its hash was altered`);
    try {
      exchange.fold(event);
    } catch (err) {
      throw new LogIntegrityError(`event seq ${event.seq} (${event.type}) cannot be applied: ${errorText(err)}`);
    }
    seq = event.seq;
    hash = computed;
    folded++;
  }
  return { seq, hash, snapshotSeq, folded, snapshotMs, foldMs: performance.now() - foldStarted };
}
