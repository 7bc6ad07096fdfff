// The competition rules across a restart on PostgreSQL (competition-rules.md): markets keep their rules,
// positions their fees, traders their keys (issued, revoked, rotated), recovered through a snapshot and
// its tail; each key's last use is written to api_key_usage and read back; a fill's fees come back from
// the history tables as each side's own, and the operator views show them.
import { expect } from 'chai';
import type { RunningServer } from '../../src/server/app.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { Client, type FillBody } from '../http/support/client.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';
import { sql } from './support/harness.ts';

interface KeyBody {
  readonly key_id: string;
  readonly scope: string;
  readonly last_used_at: string | null;
  readonly primary: boolean;
}

describe('PostgreSQL: rules, fees and keys across a restart', function () {
  this.timeout(120_000);
  let url: string;
  let server: RunningServer | null = null;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_rules');
  });
  after(async () => {
    await server?.close();
    if (url !== undefined) await dropDatabase(url);
  });

  it('recovers the rules, the fees and the keys; keeps each key\'s last use; serves the fees from the history', async () => {
    // Snapshots every few events: recovery restores one (format 4) and folds the tail.
    const env = { STORAGE_BACKEND: 'postgres', DATABASE_URL: url, SNAPSHOT_EVERY_EVENTS: '5' };
    server = await startTestServer(env);
    let c = new Client(server.url);
    const maker = await c.provision('maker');
    const taker = await c.provision('taker');
    await c.market({ market_id: 'BTC-USD', reference_price: 100, maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 50, max_open_orders: 3 });
    await c.order(maker.api_key, 'BTC-USD', 'SELL', 100, 10);
    await c.order(taker.api_key, 'BTC-USD', 'BUY', 100, 10);
    const read = await c.trader<{ api_key: string; key: KeyBody }>(maker.api_key, 'POST', '/api/v1/keys', { label: 'dash' });
    const spare = await c.admin<{ api_key: string; key: KeyBody }>('POST', `/api/v1/admin/users/${taker.trader_id}/keys`, { scope: 'trade' });
    expect((await c.admin('DELETE', `/api/v1/admin/users/${taker.trader_id}/keys/${spare.body.key.key_id}`)).status).to.equal(200);
    const rotated = await c.admin<{ profile: { api_key: string } }>('POST', `/api/v1/admin/users/${taker.trader_id}/rotate-key`);
    expect((await c.trader(read.body.api_key, 'GET', '/api/v1/positions')).status).to.equal(200);
    const before = stateHash(server.context.service.state);
    const seq = server.context.service.state.seq;
    // A clean stop writes the last uses that are still in memory.
    await server.close();
    server = null;

    server = await startTestServer(env);
    c = new Client(server.url);
    expect(server.context.service.state.seq).to.equal(seq);
    expect(stateHash(server.context.service.state)).to.equal(before);
    const markets = await c.request<{ market_id: string; maker_fee_bps: number; max_open_orders: number | null }[]>('GET', '/api/v1/markets');
    expect(markets.body[0]).to.deep.include({ maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 50, max_open_orders: 3 });
    const positions = await c.trader<{ fees: number; realized_pnl: number }[]>(maker.api_key, 'GET', '/api/v1/positions');
    expect(positions.body[0]).to.deep.include({ fees: -0.2, realized_pnl: 0.2 });
    // Each side's fee and liquidity from the history tables.
    const makerFills = await c.trader<FillBody[]>(maker.api_key, 'GET', '/api/v1/fills');
    const takerFills = await c.trader<{ fills: FillBody[] }>(rotated.body.profile.api_key, 'GET', '/api/v1/fills?limit=5');
    expect(makerFills.body.map((f) => [f.fee, f.liquidity])).to.deep.equal([[-0.2, 'maker']]);
    expect(takerFills.body.fills.map((f) => [f.fee, f.liquidity])).to.deep.equal([[0.5, 'taker']]);
    // The keys: the read key works and kept its last use; the revoked and the rotated-away ones do not.
    const keys = await c.trader<KeyBody[]>(read.body.api_key, 'GET', '/api/v1/keys');
    const readKey = keys.body.find((k) => k.key_id === read.body.key.key_id);
    expect(readKey?.last_used_at).to.be.a('string');
    expect((await c.trader(spare.body.api_key, 'GET', '/api/v1/user')).status).to.equal(401);
    expect((await c.trader(taker.api_key, 'GET', '/api/v1/user')).status).to.equal(401);
    expect((await c.trader(rotated.body.profile.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
    const usage = await sql<{ key_id: string }>(url, 'select key_id from api_key_usage');
    expect(usage.map((r) => r.key_id)).to.include(read.body.key.key_id);
    // The operator views show the fees.
    const view = await sql<{ maker_fee: string; taker_fee: string }>(url, 'select maker_fee, taker_fee from fills');
    expect(view.map((r) => [Number(r.maker_fee), Number(r.taker_fee)])).to.deep.equal([[-0.2, 0.5]]);
    const net = await sql<{ trader_id: string; fees: string }>(url, 'select trader_id, fees from net_positions order by trader_id');
    expect(Object.fromEntries(net.map((r) => [r.trader_id, Number(r.fees)]))).to.deep.equal({ [maker.trader_id]: -0.2, [taker.trader_id]: 0.5 });
  });
});
