// The whole service on PostgreSQL: a random session, a restart on the same database, and every REST
// read and WebSocket book snapshot afterwards equal to the first run's.
import { expect } from 'chai';
import { stateHash } from '../../src/projections/state-hash.ts';
import type { RunningServer } from '../../src/server/app.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';
import { call } from './support/server-process.ts';
import { RandomSession, runConcurrently, SESSION_MARKETS } from './support/random-session.ts';

async function reads(server: RunningServer, session: RandomSession): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const admin = { admin: ADMIN_TOKEN };
  out['markets'] = (await call(server.url, 'GET', '/api/v1/markets')).body;
  const state = (await call<Record<string, unknown>>(server.url, 'GET', '/api/v1/admin/state', admin)).body;
  // The writer's figures (counters, durable_seq) describe this process, not the log.
  const { persistence, ...rest } = state;
  expect(persistence).to.have.property('backend', 'postgres');
  out['admin_state'] = rest;
  out['admin_messages'] = (await call(server.url, 'GET', '/api/v1/admin/messages?limit=1000', admin)).body;
  out['admin_leaderboard'] = (await call(server.url, 'GET', '/api/v1/admin/leaderboard', admin)).body;
  for (const trader of session.traders) {
    const apiKey = session.apiKeys.get(trader) as string;
    for (const path of ['/api/v1/user', '/api/v1/positions', '/api/v1/portfolio', '/api/v1/open-orders', '/api/v1/fills', '/api/v1/leaderboard']) {
      const r = await call(server.url, 'GET', path, { apiKey });
      expect(r.status, `${path} for ${trader}`).to.equal(200);
      out[`${trader} ${path}`] = r.body;
    }
  }
  const ws = await WsTestClient.open(server.wsUrl);
  try {
    for (const m of SESSION_MARKETS) {
      ws.send({ op: 'subscribe', channel: 'l3', market: m.market_id });
      const frame = await ws.next((f) => f['market'] === m.market_id && (f.type === 'snapshot' || f.type === 'error'), `snapshot of ${m.market_id}`);
      expect(frame.type, JSON.stringify(frame)).to.equal('snapshot');
      out[`ws ${m.market_id}`] = frame;
    }
  } finally {
    await ws.close();
  }
  return out;
}

describe('PostgreSQL: restart equivalence through REST and WebSocket', function () {
  this.timeout(120_000);
  let url: string;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_restart');
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
  });

  it('a new instance on the same database answers every read as the first did', async () => {
    const env = { STORAGE_BACKEND: 'postgres', DATABASE_URL: url, SNAPSHOT_EVERY_EVENTS: '1500', PER_USER_REQUESTS_PER_SECOND: '100000' };
    const first = await startTestServer(env);
    let before: Record<string, unknown>;
    let hash: string;
    let session: RandomSession;
    try {
      session = new RandomSession(first.context.service.state, 101);
      const result = await runConcurrently(first.context.service, session, 4000);
      expect(result.accepted).to.be.greaterThan(1500);
      // A reset late in a session would leave little to compare: make sure there is trading after it.
      await runConcurrently(first.context.service, session, 500);
      before = await reads(first, session);
      hash = stateHash(first.context.service.state);
    } finally {
      await first.close();
    }
    const second = await startTestServer(env);
    try {
      expect(stateHash(second.context.service.state)).to.equal(hash);
      const after = await reads(second, session);
      expect(Object.keys(after)).to.deep.equal(Object.keys(before));
      for (const key of Object.keys(before)) expect(after[key], key).to.deep.equal(before[key]);
      const health = await call<{ status: string; persistence: { backend: string; mode: string } }>(second.url, 'GET', '/health');
      expect(health.body.status).to.equal('ok');
      expect(health.body.persistence).to.include({ backend: 'postgres', mode: 'ok' });
    } finally {
      await second.close();
    }
  });
});
