// Snapshots in PostgreSQL: written with the chain hash of their seq (taken from the events table, so a
// snapshot is only ever written for a committed seq), loaded newest first, each one checked before use.
import type pg from 'pg';
import { SNAPSHOT_VERSION, type StateSnapshot } from '../../../projections/snapshot.ts';
import type { Logger } from '../../logger.ts';
import { errorText } from './connection.ts';

/** Older snapshots are pruned; a few are kept in case the newest turns out unreadable. */
export const SNAPSHOTS_KEPT = 3;

export interface SnapshotRecord {
  readonly seq: number;
  readonly time: string;
  readonly json: string;
  readonly sha256: string;
  readonly blockedMs: number;
}

export async function writeSnapshot(pool: pg.Pool, record: SnapshotRecord): Promise<void> {
  const result = await pool.query(
    `insert into snapshots (seq, time, state, state_sha256, chain_hash, format_version, blocked_ms)
     select $1, $2, $3, $4, e.hash, $5, $6 from events e where e.seq = $1
     on conflict (seq) do nothing`,
    [record.seq, record.time, record.json, record.sha256, SNAPSHOT_VERSION, record.blockedMs],
  );
  if (result.rowCount === 0) {
    const exists = await pool.query('select 1 from snapshots where seq = $1', [record.seq]);
    if (exists.rowCount === 0) throw new Error(`snapshot at seq ${record.seq}: that event is not in the events table`);
  }
  await pool.query(`delete from snapshots where seq < (select min(seq) from (select seq from snapshots order by seq desc limit ${SNAPSHOTS_KEPT}) newest)`);
}

/**
 * A snapshot beyond the last stored event: snapshots are only written for committed seqs, so events the
 * exchange once committed (and acknowledged) are gone from the log. Recovery refuses to start on it.
 */
export class SnapshotAheadOfLog extends Error {
  constructor(snapshotSeq: number, head: number) {
    super(`the event log ends at seq ${head}, but a snapshot was taken at seq ${snapshotSeq}: committed events after seq ${head} are missing`);
    this.name = 'SnapshotAheadOfLog';
  }
}

export interface LoadedSnapshot {
  readonly snapshot: StateSnapshot;
  readonly chainHash: string;
}

/**
 * The newest snapshot below seq `below` (any, by default) that is intact (its SHA-256 matches), of this
 * format, and belongs to this log (its chain hash is the stored event's at that seq). Others are skipped
 * with a warning; one beyond the log's last event is SnapshotAheadOfLog, thrown.
 */
export async function loadNewestSnapshot(pool: pg.Pool, logger: Logger, below = Number.POSITIVE_INFINITY): Promise<LoadedSnapshot | null> {
  const { rows } = await pool.query<{ seq: string; format_version: number; chain_hash: string; event_hash: string | null; head: string | null }>(
    `select s.seq, s.format_version, s.chain_hash, e.hash as event_hash, (select max(seq) from events) as head
     from snapshots s left join events e on e.seq = s.seq where $1::bigint is null or s.seq < $1::bigint order by s.seq desc`,
    [Number.isFinite(below) ? below : null],
  );
  for (const row of rows) {
    const seq = Number(row.seq);
    const skip = (why: string) => logger.warn({ seq, why }, 'snapshot skipped');
    // Before the format: a snapshot is only ever written at a committed seq, so one past the log's end
    // says committed events are gone, whatever build wrote it (skipped first, a snapshot of an older
    // format let a cut log start, its lost events unnoticed).
    const head = Number(row.head ?? 0);
    if (row.event_hash === null && seq > head) throw new SnapshotAheadOfLog(seq, head);
    if (row.format_version !== SNAPSHOT_VERSION) {
      skip(`format ${row.format_version} is not ${SNAPSHOT_VERSION}`);
      continue;
    }
    if (row.event_hash !== row.chain_hash) {
      skip(row.event_hash === null ? 'its seq is not in the events table' : 'its chain hash differs from the stored event');
      continue;
    }
    try {
      const { rows: states } = await pool.query<{ state: string; state_sha256: string; ok: boolean }>(
        // The digest is checked by the database, next to the data, rather than after shipping it.
        `select state, state_sha256, encode(sha256(convert_to(state, 'UTF8')), 'hex') = state_sha256 as ok from snapshots where seq = $1`,
        [seq],
      );
      const stored = states[0];
      if (stored === undefined) continue;
      if (!stored.ok) {
        skip('its SHA-256 does not match its content');
        continue;
      }
      const snapshot = JSON.parse(stored.state) as StateSnapshot;
      if (snapshot.seq !== seq || snapshot.version !== SNAPSHOT_VERSION) {
        skip('its content does not match its row');
        continue;
      }
      return { snapshot, chainHash: row.chain_hash };
    } catch (err) {
      skip(`unreadable: ${errorText(err)}`);
    }
  }
  return null;
}
