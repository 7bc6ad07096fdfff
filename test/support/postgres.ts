// PostgreSQL for tests: DATABASE_URL (default the local server). Where none is reachable the suites
// skip with a visible reason, except in CI (REQUIRE_POSTGRES=1), where an unreachable database fails.
// Each suite gets a database of its own, so suites never see each other's events.
import pg from 'pg';
import { skipOrFail } from './required-tool.ts';

export const BASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let reachable: Promise<string | null> | null = null;

/** null when PostgreSQL answers, else the reason it does not. */
export function postgresUnavailable(): Promise<string | null> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: BASE_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (err) {
      return `PostgreSQL at ${BASE_URL} is not reachable: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

/** Call in a before() hook: skips the suite (or fails it in CI) when PostgreSQL is not there. */
export async function requirePostgres(ctx: Mocha.Context): Promise<void> {
  requirePostgresFeature(ctx, await postgresUnavailable());
}

/** With why this PostgreSQL server lacks what a test needs (null: it has it): skips, or fails in CI. */
export function requirePostgresFeature(ctx: Mocha.Context, missing: string | null): void {
  skipOrFail(ctx, missing, process.env['REQUIRE_POSTGRES'] === '1', 'REQUIRE_POSTGRES=1: PostgreSQL tests must run');
}

/** Creates a fresh, empty database and returns its URL; drop it with dropDatabase. */
export async function createDatabase(prefix = 'exchange_test'): Promise<string> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  try {
    // A pool's end() resolves once it has let go of its clients, before their connections have closed;
    // dropping with force then terminates a connection still closing, and its client, whose pool no
    // longer listens, reports that as an uncaught error (seen on a loaded machine). Give them a second.
    for (let i = 0; i < 20; i++) {
      const open = await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
      if ((open.rows[0]?.n ?? 0) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}
