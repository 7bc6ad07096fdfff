// Followers (ROLE=follower): real child processes folding the log a leader writes to PostgreSQL. They
// converge to the leader's state hash, serve the same reads and the same WebSocket frames (the leader's
// sequences), refuse commands with not_leader naming the leader, and catch up after a kill, a restart
// or a cut database connection.
import { expect } from 'chai';
import type { RunningServer } from '../../src/server/app.ts';
import { SESSION_MARKETS, RandomSession, runConcurrently } from '../postgres/support/random-session.ts';
import { until } from '../postgres/support/harness.ts';
import { call, PROCESS_ADMIN_TOKEN, type ServerProcess } from '../postgres/support/server-process.ts';
import { TcpProxy } from '../postgres/support/tcp-proxy.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';
import { WsTestClient, type Frame } from '../ws/support/ws-test-client.ts';
import { scrape, value } from '../support/metrics.ts';
import { ADMIN, health, nodeEnv, reachSeq, spawnNode, stateHash } from './support/cluster.ts';

/** Every read a trader or operator makes, keyed by what was read. */
async function reads(base: string, session: RandomSession): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  out['markets'] = (await call(base, 'GET', '/api/v1/markets')).body;
  const { persistence: _writerFigures, ...state } = (await call<Record<string, unknown>>(base, 'GET', '/api/v1/admin/state', ADMIN)).body;
  out['admin_state'] = state;
  out['admin_messages'] = (await call(base, 'GET', '/api/v1/admin/messages?limit=1000', ADMIN)).body;
  out['admin_leaderboard'] = (await call(base, 'GET', '/api/v1/admin/leaderboard', ADMIN)).body;
  for (const trader of session.traders.slice(0, 6)) {
    const apiKey = session.apiKeys.get(trader) as string;
    for (const path of ['/api/v1/user', '/api/v1/positions', '/api/v1/portfolio', '/api/v1/open-orders', '/api/v1/fills', '/api/v1/leaderboard']) {
      const r = await call(base, 'GET', path, { apiKey });
      expect(r.status, `${path} for ${trader}`).to.equal(200);
      out[`${trader} ${path}`] = r.body;
    }
  }
  return out;
}

/** A WS client subscribed to every market's l3 and authenticated as one trader (its private stream). */
async function watcher(wsUrl: string, apiKey: string): Promise<WsTestClient> {
  const ws = await WsTestClient.open(wsUrl);
  ws.send({ op: 'authenticate', api_key: apiKey });
  await ws.nextType('authenticated');
  for (const m of SESSION_MARKETS) {
    ws.send({ op: 'subscribe', channel: 'l3', market: m.market_id });
    await ws.next((f) => f['market'] === m.market_id && f.type === 'snapshot', `snapshot of ${m.market_id}`);
  }
  return ws;
}

const content = (frames: readonly Frame[]) => frames.filter((f) => f.type !== 'heartbeat' && f.type !== 'pong');

/** The sequence of the last l3 snapshot or delta of a market among the frames (-1: none). */
function lastL3Sequence(frames: readonly Frame[], market: string): number {
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i] as Frame;
    if (f['market'] === market && (f.type === 'delta' || f.type === 'snapshot')) return Number(f['sequence']);
  }
  return -1;
}

describe('cluster: followers', function () {
  this.timeout(120_000);
  let url: string;
  let leader: RunningServer;
  let session: RandomSession;
  const nodes: ServerProcess[] = [];

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_follower');
    leader = await startTestServer({ ...nodeEnv(url, 'leader'), ADMIN_API_TOKEN: PROCESS_ADMIN_TOKEN, SNAPSHOT_EVERY_EVENTS: '400', LOG_LEVEL: 'silent' });
    session = new RandomSession(leader.context.service.state, 14);
    await runConcurrently(leader.context.service, session, 900);
  });
  after(async () => {
    for (const n of nodes) await n.kill('SIGKILL');
    await leader?.close();
    if (url !== undefined) await dropDatabase(url);
  });

  const more = async (n: number) => {
    await runConcurrently(leader.context.service, session, n);
    await leader.context.service.persistence.durable(leader.context.service.exchange.seq);
    return leader.context.service.exchange.seq;
  };

  it('a follower started mid-session converges to the leader: state hash, reads and WebSocket frames with the leader\'s sequences', async () => {
    const follower = await spawnNode(url, 'follower');
    nodes.push(follower);
    const seq = await more(0);
    await reachSeq(follower.url, seq);
    expect(await stateHash(follower.url)).to.deep.equal(await stateHash(leader.url));
    // /metrics shows each node's role and lag.
    const followerMetrics = await scrape(`${follower.url}/metrics`, PROCESS_ADMIN_TOKEN);
    expect(value(followerMetrics, 'exchange_cluster_role', { role: 'follower' })).to.equal(1);
    expect(value(followerMetrics, 'exchange_cluster_role', { role: 'leader' })).to.equal(0);
    expect(value(followerMetrics, 'exchange_replication_lag_events')).to.equal(0);
    expect(value(followerMetrics, 'exchange_log_head_seq')).to.equal(seq);
    expect(value(await scrape(`${leader.url}/metrics`, PROCESS_ADMIN_TOKEN), 'exchange_cluster_role', { role: 'leader' })).to.equal(1);
    expect(await reads(follower.url, session)).to.deep.equal(await reads(leader.url, session));
    const h = await health(follower.url);
    expect(h).to.deep.include({ role: 'follower', admitting: false });
    // Prometheus: the follower's own figures, with its replication lag.
    const metrics = await fetch(`${follower.url}/metrics`, { headers: { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` } });
    expect(metrics.status).to.equal(200);
    expect(await metrics.text()).to.match(/^exchange_replication_lag_events 0$/m);
    expect(h.replication).to.deep.include({ seq, lag_events: 0 });

    // Live: the same frames on both, in the same order, while the session goes on.
    const trader = session.traders[0] as string;
    const onLeader = await watcher(leader.wsUrl, session.apiKeys.get(trader) as string);
    const onFollower = await watcher(follower.url.replace('http', 'ws') + '/ws', session.apiKeys.get(trader) as string);
    try {
      const head = await more(400);
      await reachSeq(follower.url, head);
      // The leader's own frames may still be on their way (its fan-out child writes them): wait for
      // every market's l3 to reach the leader's sequence there first, then for the follower's frames.
      await until('the leader\'s frames', () => SESSION_MARKETS.every((m) => lastL3Sequence(onLeader.history, m.market_id) === leader.context.service.state.marketData.sequence(m.market_id)));
      await until('the follower\'s frames', () => content(onFollower.history).length >= content(onLeader.history).length);
      const leaderFrames = content(onLeader.history);
      expect(leaderFrames.filter((f) => f.type !== 'snapshot' && f.type !== 'subscribed').length).to.be.greaterThan(100);
      expect(content(onFollower.history)).to.deep.equal(leaderFrames);
    } finally {
      await onLeader.close();
      await onFollower.close();
    }
    expect(await stateHash(follower.url)).to.deep.equal(await stateHash(leader.url));
  });

  it('refuses every command with not_leader, naming the leader (REST 503 with x-leader, WS reject)', async () => {
    const follower = nodes[0] as ServerProcess;
    const before = await stateHash(follower.url);
    const apiKey = session.apiKeys.get(session.traders[1] as string) as string;
    const order = await fetch(`${follower.url}/api/v1/orders`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ market: 'BTC-USD', side: 'BUY', price: 100, quantity: 1 }) });
    expect(order.status).to.equal(503);
    expect(order.headers.get('x-error-code')).to.equal('not_leader');
    expect(order.headers.get('x-leader')).to.equal('http://leader.example:8080');
    const body = (await order.json()) as { error: string; leader: string };
    expect(body.leader).to.equal('http://leader.example:8080');
    expect(body.error).to.match(/follower/);
    for (const [method, path, auth] of [
      ['DELETE', '/api/v1/orders', { apiKey }],
      ['POST', '/api/v1/admin/users', ADMIN],
      ['POST', '/api/v1/admin/trading/stop', ADMIN],
      ['DELETE', '/api/v1/admin/markets/BTC-USD', ADMIN],
    ] as const) {
      const r = await call(follower.url, method, path, auth, method === 'POST' ? { username: 'nobody' } : undefined);
      expect(r.status, `${method} ${path}`).to.equal(503);
    }
    const ws = await WsTestClient.open(follower.url.replace('http', 'ws') + '/ws');
    try {
      ws.send({ op: 'authenticate', api_key: apiKey });
      await ws.nextType('authenticated');
      const reject = await ws.request({ op: 'submit_order', request_id: 'o1', market: 'BTC-USD', side: 'SELL', price: 100, quantity: 1 });
      expect(reject).to.deep.include({ type: 'reject', code: 'not_leader' });
      const cancelAll = await ws.request({ op: 'cancel_all', request_id: 'c1' });
      expect(cancelAll).to.deep.include({ type: 'reject', code: 'not_leader' });
    } finally {
      await ws.close();
    }
    expect(await stateHash(follower.url)).to.deep.equal(before);
  });

  it('a follower killed with SIGKILL and restarted catches up from the log', async () => {
    const first = nodes.shift() as ServerProcess;
    await first.kill('SIGKILL');
    const head = await more(300);
    const again = await spawnNode(url, 'follower');
    nodes.push(again);
    await reachSeq(again.url, head);
    expect(await stateHash(again.url)).to.deep.equal(await stateHash(leader.url));
  });

  it('a follower whose database connection is cut catches up once it is back', async () => {
    const proxy = new TcpProxy(url);
    await proxy.start();
    try {
      const follower = await spawnNode(proxy.via(url), 'follower');
      nodes.push(follower);
      await reachSeq(follower.url, await more(0));
      proxy.cut();
      const head = await more(300);
      // Cut off, it keeps serving what it folded and says it is not reading the log.
      await until('the follower to notice the cut', async () => (await health(follower.url)).status === 'degraded');
      expect((await stateHash(follower.url)).seq).to.be.lessThan(head);
      proxy.restore();
      await reachSeq(follower.url, head, 20_000);
      expect(await stateHash(follower.url)).to.deep.equal(await stateHash(leader.url));
      // Reading caught up; listening again may take its reconnection backoff.
      await until('the follower to listen again', async () => (await health(follower.url)).status === 'ok', 10_000);
      expect((await health(follower.url)).replication).to.deep.include({ seq: head, lag_events: 0 });
    } finally {
      await proxy.close();
    }
  });
});
