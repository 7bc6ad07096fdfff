// The schema: migrations applied once and recorded, the log append-only, and the operator views
// answering from the events alone, in agreement with the service's own projections.
import { expect } from 'chai';
import { loadMigrations } from '../../src/server/persistence/postgres/migrator.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { openInstance, sql, storedLog } from './support/harness.ts';
import { RandomSession, runSession } from './support/random-session.ts';

describe('PostgreSQL schema and operator views', function () {
  this.timeout(60_000);
  let url: string;
  let seq = 0;
  let instance: Awaited<ReturnType<typeof openInstance>>;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_schema');
    instance = await openInstance(url);
    await runSession(instance.service, new RandomSession(instance.exchange.state, 91), 2000);
    await instance.close();
    seq = instance.exchange.seq;
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
  });

  it('records every migration once and applies none again on restart', async () => {
    const files = await loadMigrations();
    const applied = await sql<{ version: number }>(url, 'select version from schema_migrations order by version');
    expect(applied.map((r) => r.version)).to.deep.equal(files.map((m) => m.version));
    const again = await openInstance(url);
    await again.close();
    const after = await sql<{ n: string }>(url, 'select count(*) as n from schema_migrations');
    expect(Number(after[0]?.n)).to.equal(files.length);
  });

  it('refuses updates, deletes and truncation of events, also through the views', async () => {
    for (const statement of ['update events set type = type where seq = 1', 'delete from events where seq = 1', 'truncate events', 'delete from orders', 'update fills set price = 1']) {
      let error: unknown = null;
      await sql(url, statement).catch((err: unknown) => (error = err));
      expect(error, statement).to.not.equal(null);
    }
    const n = await sql<{ n: string }>(url, 'select count(*) as n from events');
    expect(Number(n[0]?.n)).to.equal(seq);
  });

  it('the fills view has one row per fill, matching the service', async () => {
    const rows = await sql<{ fill_id: string; price: string; quantity: string; cleared_by_reset: boolean }>(url, 'select fill_id, price, quantity, cleared_by_reset from fills');
    expect(rows.length).to.be.greaterThan(0);
    const live = rows.filter((r) => !r.cleared_by_reset);
    expect(live.length).to.equal(instance.exchange.state.fills.count);
  });

  it('the orders view shows exactly the service\'s open orders as open, with their remaining', async () => {
    const open = await sql<{ order_id: string; remaining: string }>(url, "select order_id, remaining from orders where status = 'open' order by order_id");
    const state = instance.exchange.state;
    const expected: [string, number][] = [];
    for (const trader of state.traders.all()) for (const o of state.books.openOrders(trader.trader_id)) expected.push([o.id, o.remaining]);
    expected.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    expect(open.map((r) => [r.order_id, Number(r.remaining)])).to.deep.equal(expected);
  });

  it('the net_positions view agrees with the service\'s net positions', async () => {
    const rows = await sql<{ trader_id: string; market: string; net_quantity: string }>(url, 'select trader_id, market, net_quantity from net_positions');
    const state = instance.exchange.state;
    let nonzero = 0;
    for (const r of rows) {
      expect(Number(r.net_quantity), `${r.trader_id} ${r.market}`).to.equal(state.positions.net(r.trader_id, r.market));
      if (Number(r.net_quantity) !== 0) nonzero++;
    }
    expect(nonzero).to.be.greaterThan(0);
    // And no trader holds a position the view does not show.
    const shown = new Set(rows.map((r) => `${r.trader_id} ${r.market}`));
    for (const trader of state.traders.all()) {
      for (const m of state.markets.list()) {
        if (state.positions.net(trader.trader_id, m.market_id) !== 0) expect(shown.has(`${trader.trader_id} ${m.market_id}`)).to.equal(true);
      }
    }
  });

  it('event_data() gives every string as stored, but NUL and lone surrogates as U+FFFD, escaped backslashes included', async () => {
    // A backslash followed by the text "u0000" is not the escape of NUL (migration 006).
    const bodies = ['C:\\u0000 is a path', 'a\u0000b', '\\\u0000', 'lone \ud800 and \\ud800', 'ok\\\\', 'pair 😀 \\udc00'];
    const rows = await sql<{ data: { body: string } }>(url, `select event_data(canonical) as data from (select unnest($1::text[]) as canonical) t`, [
      bodies.map((body, i) => JSON.stringify({ data: { body }, seq: i + 1 })),
    ]);
    expect(rows.map((r) => r.data.body)).to.deep.equal(['C:\\u0000 is a path', 'a\ufffdb', '\\\ufffd', 'lone \ufffd and \\ud800', 'ok\\\\', 'pair 😀 \\udc00']);
    // And every stored event's data agrees with its canonical text so (the harness checks each).
    await storedLog(url);
  });

  it('keeps the epoch in log_meta, one row', async () => {
    const rows = await sql<{ epoch: string }>(url, 'select epoch::text as epoch from log_meta');
    expect(rows).to.deep.equal([{ epoch: instance.persistence.epoch }]);
  });
});
