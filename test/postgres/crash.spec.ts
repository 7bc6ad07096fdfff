// kill -9 under load: the service as a child process, orders pouring in over HTTP with durable acks,
// then SIGKILL. After a restart on the same database the state is exactly the log's, and every order
// that was acknowledged is there.
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import pg from 'pg';
import { BASE_URL, createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { checkChain, storedLog } from './support/harness.ts';
import { call, PROCESS_ADMIN_TOKEN, spawnServer, type ServerProcess } from './support/server-process.ts';

async function sessionsGone(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = $1', [name]);
      if (Number(rows[0]?.n ?? 0) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`sessions of the killed process still open on ${name}`);
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL: kill -9 under load', function () {
  this.timeout(120_000);
  let url: string;
  let server: ServerProcess | null = null;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_crash');
  });
  after(async () => {
    if (server !== null) await server.kill('SIGKILL');
    if (url !== undefined) await dropDatabase(url);
  });

  it('every acknowledged order survives, and the restarted state is the log\'s', async () => {
    const env = { STORAGE_BACKEND: 'postgres', DATABASE_URL: url, POSTGRES_DURABLE_ACKS: 'true', PER_USER_REQUESTS_PER_SECOND: '100000', SNAPSHOT_EVERY_EVENTS: '500' };
    server = await spawnServer(env);
    const admin = { admin: PROCESS_ADMIN_TOKEN };
    const load = await call(server.url, 'POST', '/api/v1/admin/config/load', admin, {
      trading_enabled: true,
      markets: [{ market_id: 'CRASH-USD', base_asset: 'CRASH', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true }],
    });
    expect(load.status).to.equal(200);
    const traders: { trader_id: string; api_key: string }[] = [];
    for (let i = 0; i < 8; i++) traders.push((await call<{ profile: { trader_id: string; api_key: string } }>(server.url, 'POST', '/api/v1/admin/users', admin, { username: `crash_${i}` })).body.profile);

    const acknowledged: string[] = [];
    // Every order carries a client order id, so that each one can be retried after the restart.
    const sent: { apiKey: string; body: Record<string, unknown>; id: string | null }[] = [];
    let stop = false;
    const base = server.url;
    const worker = async (t: { api_key: string }, w: number) => {
      for (let i = 0; !stop; i++) {
        const body = { market: 'CRASH-USD', side: i % 2 === 0 ? 'BUY' : 'SELL', price: 95 + ((i + w) % 11), quantity: 1 + (i % 3), client_order_id: `w${w}-${i}` };
        const request = { apiKey: t.api_key, body, id: null as string | null };
        sent.push(request);
        try {
          const r = await call<{ order: { id: string } }>(base, 'POST', '/api/v1/orders', { apiKey: t.api_key }, body);
          if (r.status === 201) {
            acknowledged.push(r.body.order.id);
            request.id = r.body.order.id;
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const workers = traders.map((t, w) => worker(t, w));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const code = await server.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    server = null;
    expect(code).to.equal(null);
    // Enough acknowledged orders in flight to make the point; the count depends on the machine's load.
    expect(acknowledged.length).to.be.greaterThan(30);
    // A COMMIT the killed process had already sent may still finish on the server: read the log only
    // once the dead process's database sessions are gone.
    await sessionsGone(url);

    const stored = await storedLog(url);
    checkChain(stored);
    const storedOrders = new Set(stored.flatMap((r) => (r.event.type === 'OrderSubmitted' ? [r.event.data.order.id] : [])));
    const missing = acknowledged.filter((id) => !storedOrders.has(id));
    expect(missing, 'acknowledged orders missing from the log').to.deep.equal([]);

    // The restarted service holds exactly the state that folding the stored log gives.
    const replay = new Exchange();
    for (const r of stored) replay.fold(r.event);
    server = await spawnServer(env);
    const state = await call<{ persistence: { durable_seq: number } }>(server.url, 'GET', '/api/v1/admin/state', admin);
    expect(state.body.persistence.durable_seq).to.equal(stored.length);
    for (const t of traders) {
      const open = await call<{ id: string; remaining: number }[]>(server.url, 'GET', '/api/v1/open-orders', { apiKey: t.api_key });
      const expected = replay.state.books.openOrders(t.trader_id).map((o) => [o.id, o.remaining]);
      expect(open.body.map((o) => [o.id, o.remaining]).sort()).to.deep.equal(expected.sort());
      const positions = await call<{ market: string; net_quantity: number }[]>(server.url, 'GET', '/api/v1/positions', { apiKey: t.api_key });
      expect(positions.status).to.equal(200);
      const shown = positions.body.find((p) => p.market === 'CRASH-USD')?.net_quantity ?? 0;
      expect(shown, `net position of ${t.trader_id}`).to.equal(replay.state.positions.net(t.trader_id, 'CRASH-USD'));
    }
    // A retry of every request after the restart (same client order id, same parameters) is answered as
    // a duplicate of the acknowledged order; one that was never acknowledged either was stored (a
    // duplicate then) or is admitted now: never two orders for one client order id.
    for (const request of sent) {
      const r = await call<{ order: { id: string }; duplicate?: boolean }>(server.url, 'POST', '/api/v1/orders', { apiKey: request.apiKey }, request.body);
      if (request.id !== null) {
        expect(r.status, `retry of ${String(request.body['client_order_id'])}`).to.equal(200);
        expect(r.body.duplicate).to.equal(true);
        expect(r.body.order.id).to.equal(request.id);
      } else {
        expect([200, 201]).to.include(r.status);
        expect(r.status === 200).to.equal(storedOrders.has(r.body.order.id));
      }
    }
    // And it keeps trading on the same log.
    const more = await call(server.url, 'POST', '/api/v1/orders', { apiKey: traders[0]?.api_key as string }, { market: 'CRASH-USD', side: 'BUY', price: 90, quantity: 1 });
    expect(more.status).to.equal(201);
    await server.kill('SIGTERM');
    server = null;
    checkChain(await storedLog(url));
  });
});
