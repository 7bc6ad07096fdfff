// The deploy/ example, driven as a user would: HAProxy (Debian's) in front of a leader, a standby and a
// follower, started by deploy/run-cluster.ts (what `npm run cluster` runs). Commands and admin routes
// reach the node that admits commands, GETs and the market-data WebSocket reach the followers, and after
// a SIGKILL of the leader the same balancer URL takes orders again, on the new leader.
import { expect } from 'chai';
import { appendFileSync } from 'node:fs';
import net from 'node:net';
import { haproxyBinary, startCluster, type RunningCluster } from '../../deploy/run-cluster.ts';
import { until } from '../postgres/support/harness.ts';
import { PROCESS_ADMIN_TOKEN } from '../postgres/support/server-process.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { requireTool } from '../support/required-tool.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';
import { health } from './support/cluster.ts';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Reply {
  readonly status: number;
  readonly code: string | null;
  readonly servedBy: string | null;
  readonly body: unknown;
}

async function send(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const res = await fetch(base + path, { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // HAProxy's own error pages are HTML
  }
  return { status: res.status, code: res.headers.get('x-error-code'), servedBy: res.headers.get('x-served-by'), body: parsed };
}

describe('cluster: HAProxy example (deploy/)', function () {
  this.timeout(120_000);
  let url: string;
  let cluster: RunningCluster | null = null;
  const admin = { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` };

  before(async function () {
    await requirePostgres(this);
    requireTool(this, haproxyBinary() === null ? 'haproxy is not installed (apt-get install haproxy)' : null);
    url = await createDatabase('exchange_haproxy');
    const ports = [await freePort(), await freePort(), await freePort(), await freePort()] as const;
    cluster = await startCluster({
      databaseUrl: url,
      lbPort: ports[0],
      nodePorts: [ports[1], ports[2], ports[3]],
      ...(process.env['CLUSTER_TEST_LOG'] === undefined ? {} : { log: (line: string) => appendFileSync(process.env['CLUSTER_TEST_LOG'] as string, line + '\n') }),
      env: { ADMIN_API_TOKEN: PROCESS_ADMIN_TOKEN, POSTGRES_DURABLE_ACKS: 'true', PER_USER_REQUESTS_PER_SECOND: '100000', STANDBY_LOCK_POLL_MS: '50', FOLLOWER_POLL_INTERVAL_MS: '200' },
    });
  });
  after(async () => {
    if (cluster !== null) await cluster.stop();
    if (url !== undefined) await dropDatabase(url);
  });

  let apiKey = '';

  it('routes commands and admin to the leader, GETs and /ws to the followers, /leader/ws to the leader', async () => {
    const lb = (cluster as RunningCluster).url;
    const load = await send(lb, 'POST', '/api/v1/admin/config/load', admin, {
      trading_enabled: true,
      markets: [{ market_id: 'LB-USD', base_asset: 'LB', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true }],
    });
    expect(load.status).to.equal(200);
    expect(load.servedBy).to.equal('a');
    const user = await send(lb, 'POST', '/api/v1/admin/users', admin, { username: 'lb_trader' });
    expect(user.servedBy).to.equal('a');
    apiKey = (user.body as { profile: { api_key: string } }).profile.api_key;
    const order = await send(lb, 'POST', '/api/v1/orders', { 'x-api-key': apiKey }, { market: 'LB-USD', side: 'BUY', price: 99, quantity: 3 });
    expect(order.status).to.equal(201);
    expect(order.servedBy).to.equal('a');
    const id = (order.body as { order: { id: string } }).order.id;

    // Reads: a follower (or the standby), which has folded the order.
    await until('the order on the read side', async () => {
      const open = await send(lb, 'GET', '/api/v1/open-orders', { 'x-api-key': apiKey });
      return open.status === 200 && (open.body as { id: string }[]).some((o) => o.id === id);
    });
    const markets = await send(lb, 'GET', '/api/v1/markets', {});
    expect(['b', 'c']).to.include(markets.servedBy);
    const adminRead = await send(lb, 'GET', '/api/v1/admin/state-hash', admin);
    expect(adminRead.servedBy).to.equal('a');

    // Market data over /ws (a follower): the book; trading there is refused with not_leader.
    const ws = await WsTestClient.open(lb.replace('http', 'ws') + '/ws');
    try {
      ws.send({ op: 'subscribe', channel: 'l3', market: 'LB-USD' });
      const snapshot = await ws.nextType('snapshot');
      expect((snapshot['bids'] as unknown[]).length).to.equal(1);
      ws.send({ op: 'authenticate', api_key: apiKey });
      await ws.nextType('authenticated');
      expect(await ws.request({ op: 'submit_order', request_id: 'f', market: 'LB-USD', side: 'BUY', price: 98, quantity: 1 })).to.deep.include({ type: 'reject', code: 'not_leader' });
    } finally {
      await ws.close();
    }
    const trading = await WsTestClient.open(lb.replace('http', 'ws') + '/leader/ws');
    try {
      trading.send({ op: 'authenticate', api_key: apiKey });
      await trading.nextType('authenticated');
      const ack = await trading.request({ op: 'submit_order', request_id: 'l', market: 'LB-USD', side: 'BUY', price: 98, quantity: 1 });
      expect(ack.type, JSON.stringify(ack)).to.equal('ack');
    } finally {
      await trading.close();
    }
  });

  it('after a SIGKILL of the leader, the same URL takes orders on the standby; the killed node comes back as standby', async () => {
    const c = cluster as RunningCluster;
    const a = c.nodes.find((n) => n.name === 'a');
    a?.child.kill('SIGKILL');
    await a?.exited;
    const killedAt = performance.now();
    let answer: Reply | null = null;
    const seen = new Set<string>();
    for (let i = 0; answer === null; i++) {
      if (performance.now() - killedAt > 15_000) throw new Error(`no order acknowledged after the failover; answers: ${[...seen].join(', ')}`);
      const r = await send(c.url, 'POST', '/api/v1/orders', { 'x-api-key': apiKey }, { market: 'LB-USD', side: 'SELL', price: 101, quantity: 1, client_order_id: 'after-failover' }).catch(() => null);
      if (r !== null && (r.status === 201 || r.status === 200)) answer = r;
      else {
        // While the balancer has no leader: its own 503, or the standby's not_leader. Never another answer.
        seen.add(r === null ? 'connection error' : `${r.status} ${r.code ?? ''}`);
        expect(r === null || r.status === 503 || r.status === 502, JSON.stringify(r)).to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    console.log(`      through HAProxy: SIGKILL to the first order acknowledged by the new leader: ${Math.round(performance.now() - killedAt)} ms`);
    expect(answer.servedBy).to.equal('b');
    const restarted = await c.restart('a', 'standby');
    expect(await health(restarted.url)).to.deep.include({ role: 'standby', admitting: false });
    const state = await send(c.url, 'GET', '/api/v1/admin/state-hash', admin);
    expect(state.servedBy).to.equal('b');
  });
});
