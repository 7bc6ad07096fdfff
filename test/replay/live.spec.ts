// The live server's state hash at seq N equals the replay's of its log, for the in-memory export
// (GET /api/v1/admin/events) and for PostgreSQL (replay --database, and replay export).
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer } from '../../src/server/app.ts';
import { Client } from '../http/support/client.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';
import { prng } from '../../replay/prng.ts';
import { replay } from '../support/replay-cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'replay-live-'));

interface Hash {
  readonly seq: number;
  readonly state_hash: string;
}

/** A session through the REST API: markets, traders, crossing and resting orders, amends, cancels, a settlement. */
async function session(client: Client): Promise<Hash> {
  await client.market({ market_id: 'BTC-USD', reference_price: 100 });
  await client.market({ market_id: 'ETH-USD', reference_price: 50 });
  const traders = await Promise.all(['ann', 'ben', 'cat', 'dan'].map((u) => client.provision(u)));
  const rand = prng(17);
  let mid: Hash | null = null;
  for (let i = 0; i < 300; i++) {
    const t = traders[Math.floor(rand() * traders.length)]!;
    const market = rand() < 0.6 ? 'BTC-USD' : 'ETH-USD';
    const ref = market === 'BTC-USD' ? 100 : 50;
    const r = await client.order(t.api_key, market, rand() < 0.5 ? 'BUY' : 'SELL', ref - 5 + Math.floor(rand() * 11), 1 + Math.floor(rand() * 20));
    if (r.status === 201 && r.body.resting && rand() < 0.3) {
      const id = r.body.order.id;
      if (rand() < 0.5) await client.trader(t.api_key, 'DELETE', `/api/v1/orders/${id}`);
      else await client.trader(t.api_key, 'PATCH', `/api/v1/orders/${id}`, { remaining: 1 });
    }
    if (i === 150) mid = (await client.admin<Hash>('GET', '/api/v1/admin/state-hash')).body;
  }
  await client.admin('POST', '/api/v1/admin/messages', { level: 'info', body: 'halfway there' });
  const settle = await client.admin('POST', '/api/v1/admin/markets/ETH-USD/settle', { settlement_price: 52 });
  expect(settle.status).to.equal(200);
  expect(mid).to.not.equal(null);
  return mid as Hash;
}

describe('replay: equals the live server', function () {
  this.timeout(120_000);

  it('in memory: the exported log replays to the live state hash, at the head and at an earlier seq', async () => {
    const server = await startTestServer();
    try {
      const client = new Client(server.url);
      const mid = await session(client);
      const head = (await client.admin<Hash>('GET', '/api/v1/admin/state-hash')).body;
      const exported = await fetch(`${server.url}/api/v1/admin/events`, { headers: { authorization: 'Bearer test-admin-token' } });
      const file = join(tmp, 'memory.ndjson');
      writeFileSync(file, await exported.text());
      const atHead = await replay('state', '--file', file, '--state-hash');
      expect(atHead.stdout.trim(), atHead.stderr).to.equal(head.state_hash);
      const atMid = await replay('state', '--file', file, '--state-hash', '--until-seq', String(mid.seq));
      expect(atMid.stdout.trim()).to.equal(mid.state_hash);
      const audit = await replay('audit', '--file', file);
      expect(audit.code, audit.stderr).to.equal(0);
    } finally {
      await server.close();
    }
  });

  describe('PostgreSQL', () => {
    let url = '';
    let server: RunningServer | null = null;

    before(async function () {
      await requirePostgres(this);
      url = await createDatabase('replay_live');
    });

    after(async () => {
      await server?.close();
      if (url !== '') await dropDatabase(url);
    });

    it('replays the database, and its export, to the live state hash', async () => {
      server = await startTestServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: url });
      const client = new Client(server.url);
      const mid = await session(client);
      const head = (await client.admin<Hash>('GET', '/api/v1/admin/state-hash')).body;
      await server.close(); // flushes the writer
      server = null;

      const fromDb = await replay('state', '--database', url, '--state-hash');
      expect(fromDb.stdout.trim(), fromDb.stderr).to.equal(head.state_hash);
      const atMid = await replay('state', '--database', url, '--state-hash', '--until-seq', String(mid.seq));
      expect(atMid.stdout.trim()).to.equal(mid.state_hash);
      const audit = await replay('audit', '--database', url);
      expect(audit.code, audit.stderr).to.equal(0);
      expect(audit.stdout).to.include('every chain hash verified');

      const file = join(tmp, 'pg.ndjson');
      const exported = await replay('export', '--database', url, '--out', file);
      expect(exported.code, exported.stderr).to.equal(0);
      const verified = await replay('verify', '--file', file);
      expect(verified.stdout).to.match(new RegExp(`^ok: ${head.seq} events, seq gap-free, every chain hash verified`));
      const fromFile = await replay('state', '--file', file, '--state-hash');
      expect(fromFile.stdout.trim()).to.equal(head.state_hash);
    });
  });
});
