// Streaming the log out of PostgreSQL (src/server/persistence/postgres/event-stream.ts) on a table
// without statistics, as a log is right after it was written or imported and before autovacuum has
// analyzed it: the rows must come straight off the primary key, in seq order, not from a sort of the
// whole range first (which held recovery idle until the sort was done); and the connection must go back
// to the pool with its settings as they were.
import { expect } from 'chai';
import pg from 'pg';
import { migrate } from '../../src/server/persistence/postgres/migrator.ts';
import { copyRows, eventCopy, streamEventBytes } from '../../src/server/persistence/postgres/event-stream.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';

/** Every node type of an EXPLAIN (FORMAT JSON) plan. */
function nodeTypes(plan: { 'Node Type': string; Plans?: unknown[] }): string[] {
  return [plan['Node Type'], ...((plan.Plans ?? []) as (typeof plan)[]).flatMap(nodeTypes)];
}

describe('PostgreSQL: the log streams in seq order without a sort', function () {
  this.timeout(60_000);
  const ROWS = 20_000;
  let url: string;
  let pool: pg.Pool;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_stream');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await migrate(client);
    // Rows as the writer stores them, in bulk, and no ANALYZE: the table has no statistics.
    await client.query(`insert into events (seq, type, time, hash, canonical)
      select g, 'AdminMessagePosted', '2026-01-01T00:00:00.000000Z', md5(g::text) || md5(g::text), '{"seq":' || g || ',"pad":"' || repeat('x', 300) || '"}'
      from generate_series(1, ${ROWS}) g`);
    const stats = await client.query<{ n: string }>(`select count(*) as n from pg_stats where tablename = 'events'`);
    expect(Number(stats.rows[0]?.n), 'the table must have no statistics for this test').to.equal(0);
    await client.end();
    pool = new pg.Pool({ connectionString: url, max: 1 });
  });
  after(async () => {
    await pool?.end();
    if (url !== undefined) await dropDatabase(url);
  });

  it('plans the range as an index scan under the stream\'s settings, where the planner would otherwise sort it', async () => {
    const client = await pool.connect();
    try {
      for (const [after, to] of [[0, undefined], [5_000, undefined], [100, 15_000]] as const) {
        const sql = eventCopy(after, to);
        const plain = (await client.query<{ 'QUERY PLAN': [{ Plan: { 'Node Type': string } }] }>(`explain (format json) ${sql.select}`)).rows[0]?.['QUERY PLAN'][0].Plan;
        await client.query(sql.before);
        const planned = (await client.query<{ 'QUERY PLAN': [{ Plan: { 'Node Type': string } }] }>(`explain (format json) ${sql.select}`)).rows[0]?.['QUERY PLAN'][0].Plan;
        await client.query(sql.after);
        // The control: without the setting this table's range is sorted (if a PostgreSQL version stops
        // doing that, this says so rather than passing for the wrong reason).
        if (after === 0) expect(nodeTypes(plain as never), 'plan without the setting').to.include('Sort');
        expect(nodeTypes(planned as never), `plan of ${sql.select}`).to.not.include('Sort');
        expect(nodeTypes(planned as never).some((t) => t.startsWith('Index')), `plan of ${sql.select}`).to.equal(true);
      }
    } finally {
      client.release();
    }
  });

  it('streams every row of a range in seq order and gives the connection back with its settings as they were', async () => {
    let text = '';
    for await (const chunk of streamEventBytes(pool, 100, 15_000)) text += chunk.toString('utf8');
    const seqs = [...copyRows(text)].map((row) => Number(row.slice(0, row.indexOf('\t'))));
    expect(seqs).to.have.length(14_900);
    expect(seqs.every((s, i) => s === 101 + i)).to.equal(true);
    // The pool has one connection: the one the stream used.
    const setting = await pool.query<{ enable_sort: string }>('show enable_sort');
    expect(setting.rows[0]?.enable_sort).to.equal('on');
  });

  it('a consumer that stops early leaves no connection behind with the setting changed', async () => {
    for await (const chunk of streamEventBytes(pool, 0)) {
      expect(chunk.length).to.be.greaterThan(0);
      break;
    }
    const setting = await pool.query<{ enable_sort: string }>('show enable_sort');
    expect(setting.rows[0]?.enable_sort).to.equal('on');
  });
});
