// The history's sessions (src/server/history/history-session.ts): with enable_sort off, a lookup that
// still sorts its few rows (an order by id or by client order id, newest finish first) is costed past
// every JIT threshold, and PostgreSQL compiled each one first (75-270 ms a lookup, 0.1 ms of it the
// query's). The sessions turn JIT off; the plans of those lookups must carry no JIT.
import { expect } from 'chai';
import pg from 'pg';
import { HISTORY_SESSION_OPTIONS } from '../../src/server/history/history-session.ts';
import { createDatabase, dropDatabase, requirePostgres, requirePostgresFeature } from '../support/postgres.ts';
import { openInstance } from './support/harness.ts';

const LOOKUPS = [
  "select * from order_history where id = 'o-1' and seq > 0 and finished_seq <= 1000000 order by finished_seq desc limit 1",
  "select * from order_history where trader_id = 't-1' and client_order_id = 'c-1' and seq > 0 and finished_seq <= 1000000 order by finished_seq desc limit 1",
];

async function plans(url: string, options: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, options });
  await client.connect();
  try {
    const out: string[] = [];
    for (const sql of LOOKUPS) {
      const r = await client.query<{ 'QUERY PLAN': string }>(`explain ${sql}`);
      out.push(r.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    return out;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL history sessions', function () {
  this.timeout(30_000);
  let url = '';

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_history_session');
    // The history's tables, as the exchange's migrations make them.
    const instance = await openInstance(url);
    await instance.close();
  });
  after(async () => {
    if (url !== '') await dropDatabase(url);
  });

  it('an order lookup by id or by client order id plans with enable_sort off and without JIT', async () => {
    for (const plan of await plans(url, HISTORY_SESSION_OPTIONS)) {
      expect(plan, 'the history session plans with enable_sort off').to.match(/Sort/);
      expect(plan).not.to.match(/JIT/);
    }
  });

  it('(the control) with enable_sort off alone, the same lookups are compiled where the server can', async function () {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const available = (await client.query<{ a: boolean }>('select pg_jit_available() as a')).rows[0]?.a === true;
    await client.end();
    // Without LLVM the server compiles nothing, so the control has nothing to show; CI's server must
    // be able to (a skip there would hide a control that no longer controls anything): Debian's
    // postgresql-15 compiles with LLVM.
    requirePostgresFeature(this, available ? null : 'this PostgreSQL server cannot compile queries (pg_jit_available() is false: built without LLVM, or jit_provider missing)');
    for (const plan of await plans(url, '-c enable_sort=off')) expect(plan).to.match(/JIT/);
  });
});
