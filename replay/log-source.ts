// Where a log comes from: an NDJSON file (one event per line, `hash` optional) or the PostgreSQL
// `events` table. Both are streamed, so a log of any length is read in constant memory.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { streamStoredEvents } from '../src/server/persistence/postgres/event-stream.ts';
import { CONNECT_TIMEOUT_MS, redactUrl } from '../src/server/persistence/postgres/connection.ts';

/** One record as read, not yet checked. */
export interface RawRecord {
  /** Where it came from, for messages: `line 12` or `seq 12`. */
  readonly where: string;
  readonly value: unknown;
  /** The stored chain hash, when the source has one. */
  readonly hash: string | null;
  /** Set when the record could not even be parsed. */
  readonly problem?: string;
}

/** The source is not there at all (a missing file, an unreachable database): exit code 3. */
export class SourceUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceUnavailable';
  }
}

export async function* readNdjson(path: string): AsyncGenerator<RawRecord> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new SourceUnavailable(`${path} is not a file`);
  } catch (err) {
    if (err instanceof SourceUnavailable) throw err;
    throw new SourceUnavailable(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      yield { where: `line ${n}`, value: null, hash: null, problem: `line ${n} is not JSON${line.length < 20 ? '' : ' (truncated or corrupted?)'}` };
      continue;
    }
    let hash: string | null = null;
    if (value !== null && typeof value === 'object' && 'hash' in value) {
      const { hash: h, ...event } = value as Record<string, unknown>;
      hash = typeof h === 'string' ? h : null;
      value = event;
    }
    yield { where: `line ${n}`, value, hash };
  }
}

export async function* readPostgres(url: string): AsyncGenerator<RawRecord> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'exchange-replay' });
  try {
    try {
      const client = await pool.connect();
      try {
        const exists = await client.query<{ t: string | null }>("select to_regclass('public.events')::text as t");
        if (exists.rows[0]?.t === null || exists.rows[0]?.t === undefined) throw new SourceUnavailable(`${redactUrl(url)} has no events table`);
      } finally {
        client.release();
      }
    } catch (err) {
      if (err instanceof SourceUnavailable) throw err;
      throw new SourceUnavailable(`cannot reach PostgreSQL at ${redactUrl(url)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    for await (const stored of streamStoredEvents(pool, 0)) yield { where: `seq ${stored.event.seq}`, value: stored.event, hash: stored.hash };
  } finally {
    await pool.end();
  }
}
