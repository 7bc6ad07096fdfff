// `replay import --file log.ndjson --pg|--database URL`: restores an exported log into an EMPTY
// database. The file is verified completely first (every record well formed, seq gap-free, every chain
// hash checked, every event applicable to the state before it), and only then loaded: the schema is
// migrated, the database is checked to hold no events, and the events go in with one COPY in one
// transaction, each row holding the exact canonical text its stored hash covers. A second pass re-reads
// and re-verifies the file while loading and must end at the same head hash as the first, so a file
// changed in between is refused too; nothing is committed unless all of it verified.
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Exchange } from '../src/commands/exchange.ts';
import { canonicalJson } from '../src/events/canonical.ts';
import { sha256Hex } from '../src/events/hash.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { CONNECT_TIMEOUT_MS, redactUrl } from '../src/server/persistence/postgres/connection.ts';
import { encodeStoredRow, EVENT_COLUMNS } from '../src/server/persistence/postgres/copy-text.ts';
import { acquireLogLock, LogLockedError } from '../src/server/persistence/postgres/log-lock.ts';
import { migrate } from '../src/server/persistence/postgres/migrator.ts';
import { readNdjson, SourceUnavailable, type RawRecord } from './log-source.ts';
import { Progress } from './progress.ts';
import { LogFault, LogVerifier } from './verify.ts';

/** The target database holds events already (or snapshots): a restore never merges into a log. */
export class TargetNotEmpty extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetNotEmpty';
  }
}

export interface ImportResult {
  readonly events: number;
  readonly headHash: string;
}

/** Verifies one record and returns the exact text its stored hash covers. */
function verified(verifier: LogVerifier, record: RawRecord): { event: RecordedEvent; text: string; hash: string } {
  const previous = verifier.headHash;
  const event = verifier.check(record);
  if (record.hash === null) {
    throw new LogFault(event.seq, `${record.where} carries no chain hash: import loads only a log whose every hash it can verify (write one with \`npm run replay -- export\`)`);
  }
  const text = record.text !== undefined && sha256Hex(previous + record.text) === record.hash ? record.text : canonicalJson(event);
  return { event, text, hash: record.hash };
}

/** Pass one: the whole file, verified and folded, before the database is touched. */
async function verifyFile(file: string, progress: Progress): Promise<ImportResult> {
  const verifier = new LogVerifier();
  const exchange = new Exchange({ deltaRing: 0 });
  for await (const batch of readNdjson(file)) {
    for (const record of batch) {
      const { event } = verified(verifier, record);
      try {
        exchange.fold(event);
      } catch (err) {
        throw new LogFault(event.seq, `the event cannot be applied to the state before it: ${err instanceof Error ? err.message : String(err)}`);
      }
      progress.tick(event.seq);
    }
  }
  if (verifier.seq === 0) throw new LogFault(1, `${file} holds no events`);
  return { events: verifier.seq, headHash: verifier.headHash };
}

async function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
}

export async function importLog(file: string, databaseUrl: string, options: { quiet?: boolean } = {}): Promise<ImportResult> {
  const tty = options.quiet !== true && process.stderr.isTTY === true;
  const expected = await verifyFile(file, new Progress('verify', tty));

  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'exchange-replay-import' });
  try {
    await client.connect();
  } catch (err) {
    throw new SourceUnavailable(`cannot reach PostgreSQL at ${redactUrl(databaseUrl)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  client.on('error', () => {});
  try {
    // The lock a running exchange holds: no server can start on this database while it is restored,
    // and none may be running on it.
    try {
      await acquireLogLock(client, databaseUrl);
    } catch (err) {
      if (err instanceof LogLockedError) throw new TargetNotEmpty(`${err.message}; a restore needs a database no exchange uses`);
      throw err;
    }
    await migrate(client);
    const held = await client.query<{ events: string; snapshots: string }>('select (select count(*) from events) as events, (select count(*) from snapshots) as snapshots');
    const { events, snapshots } = held.rows[0] ?? { events: '0', snapshots: '0' };
    if (events !== '0' || snapshots !== '0') {
      throw new TargetNotEmpty(`${redactUrl(databaseUrl)} is not empty (${events} events, ${snapshots} snapshots): import restores only into an empty database`);
    }

    // Pass two: read and verify again while loading, in one transaction.
    const progress = new Progress('import', tty);
    const verifier = new LogVerifier();
    await client.query('begin');
    try {
      const copy = client.query(copyFrom(`copy events (${EVENT_COLUMNS}) from stdin`));
      const done = finished(copy);
      // A COPY that fails mid-way must not leave the writes below waiting for a 'drain' forever.
      let failed: unknown = null;
      done.catch((err: unknown) => (failed = err));
      for await (const batch of readNdjson(file)) {
        let chunk = '';
        for (const record of batch) {
          const { event, text, hash } = verified(verifier, record);
          chunk += encodeStoredRow(event, text, hash);
          progress.tick(event.seq);
        }
        if (failed !== null) throw failed;
        await write(copy, chunk);
      }
      copy.end();
      await done;
      if (verifier.seq !== expected.events || verifier.headHash !== expected.headHash) {
        throw new LogFault(Math.min(verifier.seq, expected.events) + 1, `${file} changed while it was imported (first read: ${expected.events} events, head ${expected.headHash}; second: ${verifier.seq}, head ${verifier.headHash})`);
      }
      const head = await client.query<{ seq: string; hash: string }>('select seq, hash from events order by seq desc limit 1');
      if (head.rows[0]?.seq !== String(expected.events) || head.rows[0]?.hash !== expected.headHash) throw new Error('import: the database does not hold the log just copied');
      // The history tables are derived from the log: the exchange writes them at its next start, as
      // it folds the whole log (docs/persistence.md, "History").
      if (expected.events > 0) await client.query('update log_meta set history_complete = false');
      await client.query('commit');
      progress.done(verifier.seq);
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    }
    return expected;
  } finally {
    await client.end().catch(() => {});
  }
}
