// A writer that stops for good (an error it cannot retry) must not take the service down: new commands
// get 503, reads keep working from memory, and /health says degraded.
import { expect } from 'chai';
import pg from 'pg';
import type { RunningServer } from '../../src/server/app.ts';
import { Client } from '../http/support/client.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';

describe('postgres: a stopped writer', function () {
  this.timeout(60_000);
  let url = '';
  let server: RunningServer | null = null;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('stopped_writer');
  });

  after(async () => {
    await server?.close().catch(() => {});
    if (url !== '') await dropDatabase(url);
  });

  it('refuses new commands with 503 again and again, and keeps serving reads', async () => {
    // In the real process an unhandled rejection ends it (`npm start` logs instead, but must not need to).
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', record);
    server = await startTestServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: url, POSTGRES_WRITE_RETRY_BACKOFF_MS: '20' });
    const client = new Client(server.url);
    await client.market({ market_id: 'BTC-USD', reference_price: 100 });
    const trader = await client.provision('stays');
    expect((await client.order(trader.api_key, 'BTC-USD', 'BUY', 99, 1)).status).to.equal(201);

    // Take the table away: the next flush fails with an error that retrying cannot cure.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query('alter table events rename to events_gone');
    await db.end();

    let stopped = false;
    for (let i = 0; i < 100 && !stopped; i++) {
      await client.order(trader.api_key, 'BTC-USD', 'BUY', 98, 1);
      const health = await client.request<{ status: string; persistence: { mode: string } }>('GET', '/health');
      stopped = health.body.persistence.mode === 'stopped';
      if (!stopped) await new Promise((r) => setTimeout(r, 50));
    }
    expect(stopped, 'the writer stopped').to.equal(true);
    for (let i = 0; i < 3; i++) {
      const refused = await client.order(trader.api_key, 'BTC-USD', 'BUY', 97, 1);
      expect(refused.status).to.equal(503);
      expect(refused.code).to.equal('service_unavailable');
    }
    const health = await client.request<{ status: string }>('GET', '/health');
    expect(health.status).to.equal(200);
    expect(health.body.status).to.equal('degraded');
    const orders = await client.trader<unknown[]>(trader.api_key, 'GET', '/api/v1/open-orders');
    expect(orders.status).to.equal(200);
    expect(orders.body.length).to.be.greaterThan(0);
    await new Promise((r) => setTimeout(r, 50));
    process.off('unhandledRejection', record);
    expect(unhandled, 'unhandled rejections').to.deep.equal([]);
  });
});
