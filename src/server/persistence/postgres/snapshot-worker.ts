// The snapshot worker thread: keeps a shadow of the exchange's live state by folding the committed log
// out of PostgreSQL (verifying the chain as it goes), and on request brings it up to the requested seq
// and writes its snapshot (snapshotLines, stored in pieces with their SHA-256). The trading thread never
// copies or serializes anything for a snapshot: it only names the seq (see snapshotter.ts).
//
// The shadow costs a second copy of the live state in memory (no history: the history is in the
// database, and the shadow keeps no window of finished orders) and the CPU of folding each event a
// second time, on another core; in exchange a snapshot stalls trading by microseconds whatever the size
// of the state, and snapshot + tail = full fold holds by construction (the same fold of the same log).
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { Exchange } from '../../../commands/exchange.ts';
import { GENESIS_HASH, sha256Hex } from '../../../events/hash.ts';
import { restoreLinesFrom, snapshotLines } from '../../../projections/snapshot.ts';
import { createLogger } from '../../logger.ts';
import { clientConfig, errorText } from './connection.ts';
import { streamStoredEvents } from './event-stream.ts';
import { newestSnapshot, readSnapshotLines, writeSnapshot } from './snapshot-store.ts';

export interface SnapshotWorkerData {
  readonly databaseUrl: string;
}

export interface SnapshotRequest {
  readonly id: number;
  readonly seq: number;
  /** How long the trading thread was held to ask for it. */
  readonly blockedMs: number;
}

export type SnapshotReply =
  | { readonly id: number; readonly ok: true; readonly seq: number; readonly bytes: number; readonly storedBytes: number; readonly folded: number; readonly workerMs: number }
  | { readonly id: number; readonly ok: false; readonly error: string };

if (parentPort === null) throw new Error('snapshot-worker: not started as a worker thread');
const port = parentPort;
const data = workerData as SnapshotWorkerData;
const pool = new pg.Pool({ ...clientConfig(data.databaseUrl, 'exchange-snapshotter'), max: 1, idleTimeoutMillis: 10_000 });
pool.on('error', () => {});

let shadow: Exchange | null = null;
let head = 0;
let headHash = GENESIS_HASH;
/** The seq of the snapshot the shadow started from (0: the start of the log). */
let startedFrom = 0;
/**
 * Snapshots at or after this seq failed this worker (restoring one threw, or an event after it did not
 * apply to it) and are passed over, as recovery passes them over: a wrong snapshot that stayed the
 * newest would otherwise fail every snapshot after it, and no good one would ever replace it. Once this
 * worker has written one (above it), the bound goes: the newest is then its own.
 */
let below = Number.POSITIVE_INFINITY;

/** An event the shadow could not apply. */
class NotApplied extends Error {}

/** A fresh shadow from the newest usable snapshot at or before seq (or the start of the log). */
async function start(seq: number): Promise<void> {
  for (;;) {
    const exchange = new Exchange({ deltaRing: 0, recentOrders: 0 });
    const found = await newestSnapshot(pool, createLogger('silent'), Math.min(below, seq + 1));
    head = 0;
    headHash = GENESIS_HASH;
    startedFrom = 0;
    if (found !== null) {
      try {
        await restoreLinesFrom(exchange.state, readSnapshotLines(pool, found.seq));
        if (exchange.state.seq !== found.seq) throw new Error('its content is of another seq');
      } catch {
        below = found.seq;
        continue;
      }
      head = startedFrom = found.seq;
      headHash = found.chainHash;
    }
    shadow = exchange;
    return;
  }
}

async function foldTo(seq: number): Promise<number> {
  for (;;) {
    if (shadow === null || seq < head) await start(seq);
    try {
      return await foldFrom(seq);
    } catch (err) {
      // After a snapshot, the snapshot may be what is wrong: start again below it (at last from the
      // start of the log, where a failure is the log's and is reported).
      if (!(err instanceof NotApplied) || startedFrom === 0) throw err;
      below = startedFrom;
      shadow = null;
    }
  }
}

async function foldFrom(seq: number): Promise<number> {
  const exchange = shadow as Exchange;
  let folded = 0;
  for await (const stored of streamStoredEvents(pool, head, seq)) {
    if (stored.event.seq !== head + 1) throw new Error(`the event log has a gap: seq ${head + 1} is missing`);
    const hash = sha256Hex(headHash + stored.text);
    if (hash !== stored.hash) throw new Error(`the event log's hash chain is broken at seq ${stored.event.seq}`);
    try {
      exchange.fold(stored.event);
    } catch (err) {
      throw new NotApplied(`event seq ${stored.event.seq} (${stored.event.type}) cannot be applied: ${errorText(err)}`);
    }
    head = stored.event.seq;
    headHash = hash;
    folded++;
  }
  if (head !== seq) throw new Error(`seq ${seq} is not in the events table (the log ends at ${head})`);
  return folded;
}

async function snapshot(request: SnapshotRequest): Promise<SnapshotReply> {
  const started = performance.now();
  try {
    const folded = await foldTo(request.seq);
    const state = (shadow as Exchange).state;
    // Nothing applies events to the shadow while the lines are written out (this worker is its only user).
    const written = await writeSnapshot(pool, { seq: state.seq, time: state.time, blockedMs: request.blockedMs }, snapshotLines(state));
    below = Number.POSITIVE_INFINITY;
    return { id: request.id, ok: true, seq: state.seq, bytes: written.bytes, storedBytes: written.storedBytes, folded, workerMs: performance.now() - started };
  } catch (err) {
    // A shadow that failed half way is not trusted again: the next request starts afresh.
    shadow = null;
    return { id: request.id, ok: false, error: errorText(err) };
  }
}

// One request at a time, in order.
let queue = Promise.resolve();
port.on('message', (message: SnapshotRequest | 'close') => {
  if (message === 'close') {
    queue = queue.then(async () => {
      await pool.end();
      port.close();
    });
    return;
  }
  queue = queue.then(async () => port.postMessage(await snapshot(message)));
});
