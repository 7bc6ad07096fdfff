// One writer per log: the writer's own session holds a PostgreSQL advisory lock. Only a session that
// holds it ever writes events, and the lock goes away with the session (a crashed process cannot leave
// it behind). A second instance on the same database is refused at startup.
import type pg from 'pg';
import { databaseName } from './connection.ts';

/** A fixed key for "the exchange's event log" (advisory locks are per database). */
export const LOG_LOCK_KEY = 0x45_58_43_48_4c_4f_47n; // "EXCHLOG"

export class LogLockedError extends Error {
  constructor(url: string) {
    super(
      `another exchange instance holds the log in database ${databaseName(url)} (PostgreSQL advisory lock ${LOG_LOCK_KEY} is taken); ` +
        'stop that instance or point DATABASE_URL at another database',
    );
    this.name = 'LogLockedError';
  }
}

/** Takes the lock on this session, or throws LogLockedError at once (never waits). */
export async function acquireLogLock(client: pg.Client, url: string): Promise<void> {
  const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1::bigint) as locked', [LOG_LOCK_KEY.toString()]);
  if (rows[0]?.locked !== true) throw new LogLockedError(url);
}
