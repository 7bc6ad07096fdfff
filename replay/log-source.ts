// Where a log comes from: an NDJSON file (one event per line, `hash` optional) or the PostgreSQL
// `events` table. Both are streamed, so a log of any length is read in constant memory.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import pg from 'pg';
import { streamEventBytes, streamStoredEvents } from '../src/server/persistence/postgres/event-stream.ts';
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
  /** The exact text the stored hash should cover, when the source can tell it without re-serializing. */
  readonly text?: string;
}

/** The options that name a log's source, as every command line of the project takes them. */
export const SOURCE_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  file: { type: 'string' },
  database: { type: 'string' },
  pg: { type: 'boolean' },
} as const;

/** The database a command line names: --database URL, or --pg with DATABASE_URL (or the local default). */
export function databaseOf(values: { readonly database?: string | undefined; readonly pg?: boolean | undefined }): string | undefined {
  return values.database ?? (values.pg === true ? (process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres') : undefined);
}

/** The source is not there at all (a missing file, an unreachable database): exit code 3. */
export class SourceUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceUnavailable';
  }
}

const BATCH = 512;

/** Parses one NDJSON line. An export keeps the line canonical, hash member included, so the text the
 * chain hash covers is the line with that member cut out; the verifier tries it before re-serializing. */
export function recordOf(line: string, n: number): RawRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { where: `line ${n}`, value: null, hash: null, problem: `line ${n} is not JSON${line.length < 20 ? '' : ' (truncated or corrupted?)'}` };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'hash' in value) {
    const { hash, ...event } = value as Record<string, unknown>;
    if (typeof hash !== 'string') return { where: `line ${n}`, value: event, hash: null };
    const member = `,"hash":${JSON.stringify(hash)}`;
    const at = line.indexOf(member);
    const text = at >= 0 && line.indexOf(member, at + 1) < 0 ? line.slice(0, at) + line.slice(at + member.length) : undefined;
    return text === undefined ? { where: `line ${n}`, value: event, hash } : { where: `line ${n}`, value: event, hash, text };
  }
  return { where: `line ${n}`, value, hash: null };
}

/** Records in batches: one await per few hundred lines instead of one per line. */
export async function* readNdjson(path: string): AsyncGenerator<RawRecord[]> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new SourceUnavailable(`${path} is not a file`);
  } catch (err) {
    if (err instanceof SourceUnavailable) throw err;
    throw new SourceUnavailable(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let rest = '';
  let n = 0;
  let batch: RawRecord[] = [];
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      n++;
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() !== '') batch.push(recordOf(line, n));
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    rest = text.slice(start);
  }
  if (rest.trim() !== '') batch.push(recordOf(rest, n + 1));
  if (batch.length > 0) yield batch;
}

/** A one-connection pool on a database that holds an events table; SourceUnavailable otherwise. */
async function openEventsPool(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'exchange-replay' });
  try {
    const client = await pool.connect();
    try {
      const exists = await client.query<{ t: string | null }>("select to_regclass('public.events')::text as t");
      if (exists.rows[0]?.t === null || exists.rows[0]?.t === undefined) throw new SourceUnavailable(`${redactUrl(url)} has no events table`);
    } finally {
      client.release();
    }
    return pool;
  } catch (err) {
    await pool.end().catch(() => {});
    if (err instanceof SourceUnavailable) throw err;
    throw new SourceUnavailable(`cannot reach PostgreSQL at ${redactUrl(url)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function* readPostgres(url: string): AsyncGenerator<RawRecord[]> {
  const pool = await openEventsPool(url);
  try {
    let batch: RawRecord[] = [];
    for await (const stored of streamStoredEvents(pool, 0)) {
      batch.push({ where: `seq ${stored.event.seq}`, value: stored.event, hash: stored.hash, text: stored.text });
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    await pool.end();
  }
}

/** The bytes of an NDJSON log as read (for the pipeline, which frames the lines itself). */
export async function* ndjsonBytes(path: string): AsyncGenerator<Uint8Array> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new SourceUnavailable(`${path} is not a file`);
  } catch (err) {
    if (err instanceof SourceUnavailable) throw err;
    throw new SourceUnavailable(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  yield* createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
}

/** The COPY text of a database's events table, rows `seq\thash\tcanonical` (for the pipeline). */
export async function* postgresBytes(url: string): AsyncGenerator<Uint8Array> {
  const pool = await openEventsPool(url);
  try {
    yield* streamEventBytes(pool, 0);
  } finally {
    await pool.end();
  }
}
