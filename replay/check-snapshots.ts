// Checks the snapshots a PostgreSQL log holds against the log itself: folds the verified log from its
// start and, at each snapshot's seq, restores the snapshot into a fresh state and compares the two state
// hashes. Recovery and the snapshot worker pass over a snapshot that cannot be restored or after which an
// event does not apply; one that restores and holds a wrong value (a position, a price) they cannot
// see, and the worker's later snapshots carry it on. This is how an operator or an auditor sees it.
// Nothing the snapshot rows say is trusted: their digest, chain hash and content are each checked.
import pg from 'pg';
import { Exchange } from '../src/commands/exchange.ts';
import type { ExchangeState } from '../src/projections/exchange-state.ts';
import { restoreLinesFrom, SNAPSHOT_VERSION } from '../src/projections/snapshot.ts';
import { stateHash } from '../src/projections/state-hash.ts';
import { CONNECT_TIMEOUT_MS, redactUrl } from '../src/server/persistence/postgres/connection.ts';
import { readSnapshotLines } from '../src/server/persistence/postgres/snapshot-store.ts';
import { SourceUnavailable } from './log-source.ts';
import { source, type RebuildOptions } from './rebuild.ts';
import { LogFault, LogVerifier } from './verify.ts';

export interface SnapshotVerdict {
  readonly seq: number;
  /**
   * How it stands: `matches` the state the log folds to at its seq; `differs` from it (`fault` says
   * how); `ahead` of the log, which ends before its seq (events it covers are missing from the log:
   * recovery refuses to start), whatever its format; `unchecked`, within the log but written in a
   * snapshot format of another build, which this build cannot restore and recovery skips (`fault` says
   * which).
   */
  readonly status: 'matches' | 'differs' | 'ahead' | 'unchecked';
  /** Null when it matches; otherwise why not, in words. */
  readonly fault: string | null;
  /** The state hash of the log at the snapshot's seq (null when the log ends before it or it was not checked). */
  readonly logStateHash: string | null;
}

interface StoredSnapshot {
  readonly seq: number;
  readonly formatVersion: number;
  readonly chainHash: string;
}

async function storedSnapshots(pool: pg.Pool, url: string): Promise<StoredSnapshot[]> {
  try {
    const { rows } = await pool.query<{ seq: string; format_version: number; chain_hash: string }>('select seq, format_version, chain_hash from snapshots order by seq');
    return rows.map((r) => ({ seq: Number(r.seq), formatVersion: r.format_version, chainHash: r.chain_hash }));
  } catch (err) {
    throw new SourceUnavailable(`cannot read snapshots from ${redactUrl(url)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The snapshot's own faults (its digest is checked as it is read, as recovery checks it), or the state it restores to. */
async function restored(pool: pg.Pool, snapshot: StoredSnapshot): Promise<{ fault: string } | { state: ExchangeState }> {
  try {
    const exchange = new Exchange({ deltaRing: 0, recentOrders: 0 });
    await restoreLinesFrom(exchange.state, readSnapshotLines(pool, snapshot.seq));
    if (exchange.state.seq !== snapshot.seq) return { fault: `its content is of seq ${exchange.state.seq}, not its row's` };
    return { state: exchange.state };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/SHA-256 does not match/.test(message)) return { fault: 'its SHA-256 does not match its content' };
    return { fault: `it cannot be restored: ${message}` };
  }
}

/**
 * How a restored state differs from the log's fold at the same seq: its state hash (the live state,
 * the count of fills since the last reset and the schema version included), then what a start restores
 * that the hash does not cover (the head's time, which the admission clock continues from). Null when
 * they agree.
 */
function difference(state: ExchangeState, log: ExchangeState, logHash: string): string | null {
  const hash = stateHash(state);
  if (hash !== logHash) return `it restores to state hash ${hash}, the log folds to ${logHash}`;
  for (const [what, a, b] of [
    ['time', state.time, log.time],
    ['schema', state.schema, log.schema],
  ] as const) {
    if (a !== b) return `its ${what} is ${JSON.stringify(a)}, the log's ${JSON.stringify(b)}`;
  }
  return null;
}

/** A verdict per stored snapshot, oldest first. Throws LogFault when the log itself is faulty. */
export async function checkSnapshots(o: RebuildOptions & { readonly database: string }): Promise<SnapshotVerdict[]> {
  const pool = new pg.Pool({ connectionString: o.database, max: 2, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'exchange-replay-snapshots' });
  try {
    return await checkWith(pool, o);
  } finally {
    await pool.end();
  }
}

async function checkWith(pool: pg.Pool, o: RebuildOptions & { readonly database: string }): Promise<SnapshotVerdict[]> {
  const snapshots = await storedSnapshots(pool, o.database);
  const verdicts: SnapshotVerdict[] = [];
  if (snapshots.length === 0) return verdicts;
  const exchange = new Exchange({ deltaRing: 0, recentOrders: 0 });
  const verifier = new LogVerifier();
  let next = 0;
  const judge = async (snapshot: StoredSnapshot): Promise<void> => {
    // Another build's format: this one cannot restore it (nor can its recovery, which skips it), so
    // there is nothing to compare; it is not called wrong for that.
    if (snapshot.formatVersion !== SNAPSHOT_VERSION) {
      verdicts.push({ seq: snapshot.seq, status: 'unchecked', fault: `its format ${snapshot.formatVersion} is not this build's (${SNAPSHOT_VERSION}): recovery skips it`, logStateHash: null });
      return;
    }
    const logHash = stateHash(exchange.state);
    let fault: string | null = null;
    if (snapshot.chainHash !== verifier.headHash) fault = `its chain hash ${snapshot.chainHash} is not the log's at seq ${snapshot.seq} (${verifier.headHash})`;
    else {
      const got = await restored(pool, snapshot);
      fault = 'fault' in got ? got.fault : difference(got.state, exchange.state, logHash);
    }
    verdicts.push({ seq: snapshot.seq, status: fault === null ? 'matches' : 'differs', fault, logStateHash: logHash });
  };
  // A snapshot at seq 0 would be of the empty state: none is ever written, but one is judged as such.
  while (next < snapshots.length && (snapshots[next] as StoredSnapshot).seq <= 0) await judge(snapshots[next++] as StoredSnapshot);
  reading: for await (const batch of source(o)) {
    for (const record of batch) {
      const recorded = verifier.check(record);
      try {
        exchange.fold(recorded);
      } catch (err) {
        throw new LogFault(recorded.seq, `the event cannot be applied to the state before it: ${err instanceof Error ? err.message : String(err)}`);
      }
      while (next < snapshots.length && (snapshots[next] as StoredSnapshot).seq === exchange.seq) await judge(snapshots[next++] as StoredSnapshot);
      if (next === snapshots.length) break reading;
    }
  }
  // Past the log's end, whatever the format: a snapshot is only written at a committed seq, so the log
  // once reached it (recovery refuses such a log for the same reason).
  for (; next < snapshots.length; next++) {
    const snapshot = snapshots[next] as StoredSnapshot;
    verdicts.push({ seq: snapshot.seq, status: 'ahead', fault: `the log ends at seq ${exchange.seq}, before it`, logStateHash: null });
  }
  return verdicts;
}
