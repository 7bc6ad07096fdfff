import type pg from 'pg';

/** The log's epoch: created with the log (migration 003), the same for as long as the log lives. */
export async function readEpoch(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ epoch: string }>('select epoch::text as epoch from log_meta');
  const epoch = rows[0]?.epoch;
  if (epoch === undefined) throw new Error('log_meta has no row: the schema was not migrated completely');
  return epoch;
}
