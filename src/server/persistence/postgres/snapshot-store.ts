// Snapshots in PostgreSQL: written with the chain hash of their seq (taken from the events table, so a
// snapshot is only ever written for a committed seq), loaded newest first, each one checked before use.
// A snapshot's text (its lines: src/projections/snapshot.ts) is stored in pieces of about a megabyte
// of text, gzipped (snapshot_pieces, migration 007), written with COPY and read back with COPY, a piece
// at a time: no one string on either side, nor one value in the database, holds a whole snapshot, and
// its SHA-256 (over the text) is computed as the pieces go by. Gzip takes the resting orders' repeated
// trader ids, markets and times down to a fifth or less of their text.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { SNAPSHOT_VERSION } from '../../../projections/snapshot.ts';
import type { Logger } from '../../logger.ts';
import { errorText } from './connection.ts';
import { copyUnescape } from './copy-text.ts';
import { copyRows } from './event-stream.ts';

/** Older snapshots are pruned; a few are kept in case the newest turns out unreadable. */
export const SNAPSHOTS_KEPT = 3;

/** Characters of snapshot lines per stored piece. */
export const PIECE_CHARS = 1 << 20;

export interface WrittenSnapshot {
  /** The text's size, and the size stored (gzipped). */
  readonly bytes: number;
  readonly storedBytes: number;
  readonly pieces: number;
  readonly sha256: string;
}

/**
 * Writes the snapshot at `seq` (an event the table holds) from its lines, in one transaction: its row,
 * then its pieces. Resolves with its size; does nothing (bytes 0) when a snapshot of that seq exists.
 */
export async function writeSnapshot(pool: pg.Pool, record: { readonly seq: number; readonly time: string; readonly blockedMs: number }, lines: Iterable<string>): Promise<WrittenSnapshot> {
  const client = await pool.connect();
  // A lost connection fails the query and also emits 'error' on the client: heard here, not uncaught.
  const ignore = (): void => {};
  client.on('error', ignore);
  let ok = false;
  try {
    await client.query('begin');
    const inserted = await client.query(
      `insert into snapshots (seq, time, state, state_sha256, chain_hash, format_version, blocked_ms)
       select $1, $2, '', repeat('0', 64), e.hash, $3, $4 from events e where e.seq = $1
       on conflict (seq) do nothing`,
      [record.seq, record.time, SNAPSHOT_VERSION, record.blockedMs],
    );
    if (inserted.rowCount === 0) {
      const exists = await client.query('select 1 from snapshots where seq = $1', [record.seq]);
      await client.query('rollback');
      ok = true;
      if (exists.rowCount === 0) throw new Error(`snapshot at seq ${record.seq}: that event is not in the events table`);
      return { bytes: 0, storedBytes: 0, pieces: 0, sha256: '' };
    }
    const digest = createHash('sha256');
    const copy = client.query(copyFrom('copy snapshot_pieces (seq, piece, body) from stdin'));
    const done = finished(copy);
    let bytes = 0;
    let storedBytes = 0;
    let pieces = 0;
    let piece: string[] = [];
    let chars = 0;
    const flush = async (): Promise<void> => {
      const text = Buffer.from(piece.join(''), 'utf8');
      piece = [];
      chars = 0;
      digest.update(text);
      bytes += text.length;
      const gz = gzipSync(text);
      storedBytes += gz.length;
      // bytea in COPY's text format: \x and hex (the backslash itself escaped).
      if (!copy.write(`${record.seq}\t${pieces++}\t\\\\x${gz.toString('hex')}\n`)) await new Promise<void>((resolve) => copy.once('drain', resolve));
    };
    let first = true;
    for (const line of lines) {
      // Lines are joined by newlines, as snapshotLines are read back (piece boundaries fall anywhere).
      const text = first ? line : `\n${line}`;
      first = false;
      piece.push(text);
      chars += text.length;
      if (chars >= PIECE_CHARS) await flush();
    }
    if (chars > 0 || pieces === 0) await flush();
    copy.end();
    await done;
    const sha256 = digest.digest('hex');
    await client.query('update snapshots set state_sha256 = $2 where seq = $1', [record.seq, sha256]);
    await client.query(`delete from snapshots where seq < (select min(seq) from (select seq from snapshots order by seq desc limit ${SNAPSHOTS_KEPT}) newest)`);
    await client.query('commit');
    ok = true;
    // The pruned snapshots' pieces are dead rows until a vacuum: without one (autovacuum off, or behind)
    // the table kept every snapshot ever written, 3.3 MiB each at 100,000 resting orders. Vacuumed here,
    // their space is taken by the next snapshot's pieces, so the table stays at a few snapshots. A
    // vacuum that cannot run (a lock, a role that does not own the table) leaves it to autovacuum.
    await client.query('vacuum (skip_locked) snapshots, snapshot_pieces').catch(() => {});
    return { bytes, storedBytes, pieces, sha256 };
  } finally {
    if (!ok) await client.query('rollback').catch(() => {});
    client.off('error', ignore);
    // A connection left inside a failed COPY is not given back to the pool.
    client.release(!ok);
  }
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

export interface SnapshotCandidate {
  readonly seq: number;
  readonly chainHash: string;
}

/**
 * The newest snapshot below seq `below` (any, by default) of this format that belongs to this log (its
 * chain hash is the stored event's at that seq); others are skipped with a warning. One beyond the log's
 * last event is SnapshotAheadOfLog, thrown. Its content is checked as it is read (readSnapshotLines).
 */
export async function newestSnapshot(pool: pg.Pool, logger: Logger, below = Number.POSITIVE_INFINITY): Promise<SnapshotCandidate | null> {
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
    return { seq, chainHash: row.chain_hash };
  }
  return null;
}

/** A snapshot whose stored pieces do not hash to its recorded SHA-256, or cannot be read. */
export class DamagedSnapshot extends Error {
  constructor(seq: number, why: string) {
    super(`snapshot at seq ${seq}: ${why}`);
    this.name = 'DamagedSnapshot';
  }
}

/**
 * The lines of the snapshot at `seq`, as stored, read a piece at a time. Its SHA-256 is checked at the
 * end: DamagedSnapshot is thrown after the last line when it does not match (a reader restoring as it
 * reads drops what it restored).
 */
export async function* readSnapshotLines(pool: pg.Pool, seq: number): AsyncGenerator<string> {
  if (!Number.isSafeInteger(seq)) throw new Error('readSnapshotLines: seq must be an integer');
  const { rows } = await pool.query<{ state_sha256: string }>('select state_sha256 from snapshots where seq = $1', [seq]);
  const expected = rows[0]?.state_sha256;
  if (expected === undefined) throw new DamagedSnapshot(seq, 'it is gone');
  const client = await pool.connect();
  const ignore = (): void => {};
  client.on('error', ignore);
  let complete = false;
  try {
    const stream = client.query(copyTo(`copy (select body from snapshot_pieces where seq = ${seq} order by piece) to stdout`));
    const digest = createHash('sha256');
    const decoder = new TextDecoder('utf-8');
    let rest = '';
    // The pieces' text, joined across piece boundaries: complete lines go out, a partial one waits.
    let carry = '';
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const end = text.lastIndexOf('\n') + 1;
      for (const row of copyRows(text.slice(0, end))) {
        const escaped = copyUnescape(row);
        if (!escaped.startsWith('\\x')) throw new DamagedSnapshot(seq, 'a piece is not bytea text');
        const raw = gunzipSync(Buffer.from(escaped.slice(2), 'hex'));
        digest.update(raw);
        const body = raw.toString('utf8');
        const lines = (carry + body).split('\n');
        carry = lines.pop() as string;
        for (const line of lines) yield line;
      }
      rest = text.slice(end);
    }
    if (rest !== '') throw new DamagedSnapshot(seq, 'its pieces end in the middle of a row');
    if (carry !== '') yield carry;
    complete = true;
    if (digest.digest('hex') !== expected) throw new DamagedSnapshot(seq, 'its SHA-256 does not match its content');
  } catch (err) {
    if (err instanceof DamagedSnapshot) throw err;
    throw new DamagedSnapshot(seq, `unreadable: ${errorText(err)}`);
  } finally {
    client.off('error', ignore);
    client.release(!complete);
  }
}
