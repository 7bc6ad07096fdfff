// Applies the numbered SQL files of migrations/ that have not run yet, each in its own transaction,
// recording them in schema_migrations. Runs at startup under the log's advisory lock, so two
// instances never migrate at once.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../migrations/', import.meta.url));

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const m = /^(\d+)_([\w-]+)\.sql$/.exec(file);
    if (m === null) throw new Error(`migrations: ${file} is not named NNN_name.sql`);
    const version = Number(m[1]);
    if (migrations.some((x) => x.version === version)) throw new Error(`migrations: version ${version} appears twice`);
    migrations.push({ version, name: m[2] as string, sql: await readFile(`${dir}/${file}`, 'utf8') });
  }
  return migrations;
}

/** Returns the versions applied by this call (empty when the schema was current). */
export async function migrate(client: pg.Client, dir = MIGRATIONS_DIR): Promise<number[]> {
  await client.query(`create table if not exists schema_migrations (
    version integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`);
  const done = new Set((await client.query<{ version: number }>('select version from schema_migrations')).rows.map((r) => r.version));
  const applied: number[] = [];
  for (const migration of await loadMigrations(dir)) {
    if (done.has(migration.version)) continue;
    await client.query('begin');
    try {
      await client.query(migration.sql);
      await client.query('insert into schema_migrations (version, name) values ($1, $2)', [migration.version, migration.name]);
      await client.query('commit');
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw new Error(`migration ${migration.version}_${migration.name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    applied.push(migration.version);
  }
  return applied;
}
