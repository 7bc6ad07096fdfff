// What a follower checks before it folds anything: the database holds an exchange log (not an empty
// or a foreign database) at exactly the schema this build reads. A follower never migrates: it never
// writes, so a log that is not there yet (or is newer than this build) is a clear error at start.
import type pg from 'pg';
import { databaseName } from '../persistence/postgres/connection.ts';
import { readEpoch } from '../persistence/postgres/log-meta.ts';
import { loadMigrations } from '../persistence/postgres/migrator.ts';

export class NotFollowableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFollowableError';
  }
}

/** The log's epoch, once the database is known to hold a log this build can follow. */
export async function checkFollowableLog(client: pg.Client, url: string): Promise<string> {
  const db = databaseName(url);
  const { rows } = await client.query<{ events: boolean; meta: boolean; migrations: boolean }>(
    `select to_regclass('events') is not null as events, to_regclass('log_meta') is not null as meta, to_regclass('schema_migrations') is not null as migrations`,
  );
  const found = rows[0];
  if (found === undefined || !found.events || !found.meta || !found.migrations) {
    throw new NotFollowableError(
      `database ${db} holds no exchange log (no events, log_meta or schema_migrations table): ` +
        'start the leader on it first (it creates the log), or point DATABASE_URL at the leader\'s database',
    );
  }
  const applied = new Set((await client.query<{ version: number }>('select version from schema_migrations')).rows.map((r) => r.version));
  const known = (await loadMigrations()).map((m) => m.version);
  const missing = known.filter((v) => !applied.has(v));
  const unknown = [...applied].filter((v) => !known.includes(v)).sort((a, b) => a - b);
  if (unknown.length > 0) throw new NotFollowableError(`the log in database ${db} has schema versions this build does not know (${unknown.join(', ')}): run a follower of the leader's version`);
  if (missing.length > 0) throw new NotFollowableError(`the log in database ${db} lacks schema versions ${missing.join(', ')}: start the leader of this version first (it migrates the log)`);
  return readEpoch(client);
}
