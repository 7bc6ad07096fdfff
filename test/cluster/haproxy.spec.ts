// The deploy/ example, driven as a user would: HAProxy (Debian's) in front of a leader, a standby and a
// follower, started by deploy/run-cluster.ts (what `npm run cluster` runs). Commands and admin routes
// reach the node that admits commands, GETs and the market-data WebSocket reach the followers, and after
// a SIGKILL of the leader the same balancer URL takes orders again, on the new leader. Clients bound to
// distinct loopback addresses stand for people on distinct machines: behind the balancer each is its
// own address in every per-address limit (X-Forwarded-For, or the PROXY protocol with SEND_PROXY_V2).
import { expect } from 'chai';
import { appendFileSync } from 'node:fs';
import net from 'node:net';
import type { ChildProcess } from 'node:child_process';
import type { WebSocket } from 'ws';
import { haproxyBinary, startBalancer, startCluster, type RunningCluster } from '../../deploy/run-cluster.ts';
import { until } from '../postgres/support/harness.ts';
import { PROCESS_ADMIN_TOKEN, type ServerProcess } from '../postgres/support/server-process.ts';
import { httpFrom, wsFrom, type UpgradeOutcome } from '../support/from-address.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { requireTool } from '../support/required-tool.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';
import { health, spawnNode } from './support/cluster.ts';

/** Why the balancer cannot run here, or null when it can. */
const haproxyMissing = (): string | null => (haproxyBinary() === null ? 'haproxy is not installed (apt-get install haproxy)' : null);

/** Per-address limits small enough to meet within a test. */
const LIMITS = { ADMIN_AUTH_FAILURES_PER_MINUTE: '5', WS_MAX_ANONYMOUS_PER_ADDRESS: '2' };

/** `perAddress` spectators from each of `addresses` loopback addresses (127.0.7.1 on), all at once. */
async function spectators(wsUrl: string, addresses: number, perAddress: number): Promise<{ open: WebSocket[]; refused: string[] }> {
  const outcomes: Promise<UpgradeOutcome>[] = [];
  for (let a = 1; a <= addresses; a++) for (let i = 0; i < perAddress; i++) outcomes.push(wsFrom(`127.0.7.${a}`, wsUrl));
  const open: WebSocket[] = [];
  const refused: string[] = [];
  for (const o of await Promise.all(outcomes)) {
    if ('open' in o) open.push(o.open);
    else refused.push(`${o.status} ${String(o.code)}`);
  }
  return { open, refused };
}

/** An outsider's wrong admin tokens from one address, then the organizer's right one from another. */
async function lockout(url: string, headersOfAttacker: (i: number) => Record<string, string> = () => ({})): Promise<{ attacker: number[]; organizer: number }> {
  const attacker: number[] = [];
  for (let i = 0; i <= Number(LIMITS.ADMIN_AUTH_FAILURES_PER_MINUTE); i++) attacker.push((await httpFrom('127.0.6.1', `${url}/api/v1/admin/state`, 'GET', { authorization: `Bearer wrong-${i}`, ...headersOfAttacker(i) })).status);
  const organizer = (await httpFrom('127.0.6.2', `${url}/api/v1/admin/state`, 'GET', { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` })).status;
  return { attacker, organizer };
}

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
    requireTool(this, haproxyMissing());
    url = await createDatabase('exchange_haproxy');
    const ports = [await freePort(), await freePort(), await freePort(), await freePort()] as const;
    cluster = await startCluster({
      databaseUrl: url,
      lbPort: ports[0],
      nodePorts: [ports[1], ports[2], ports[3]],
      ...(process.env['CLUSTER_TEST_LOG'] === undefined ? {} : { log: (line: string) => appendFileSync(process.env['CLUSTER_TEST_LOG'] as string, line + '\n') }),
      env: { ADMIN_API_TOKEN: PROCESS_ADMIN_TOKEN, POSTGRES_DURABLE_ACKS: 'true', PER_USER_REQUESTS_PER_SECOND: '100000', STANDBY_LOCK_POLL_MS: '50', FOLLOWER_POLL_INTERVAL_MS: '200', ...LIMITS },
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

  it('spectators from many addresses all connect through the balancer (each counted as itself, not as the balancer)', async () => {
    // 30 addresses, 2 each (the cap): as the balancer's own, at most 2 per node would have opened.
    const { open, refused } = await spectators((cluster as RunningCluster).url.replace('http', 'ws') + '/ws', 30, 2);
    try {
      expect(refused).to.deep.equal([]);
      expect(open).to.have.length(60);
    } finally {
      for (const ws of open) ws.terminate();
    }
  });

  it("one outsider's wrong admin tokens lock out that outsider (429), not the organizer at another address (200)", async () => {
    const { attacker, organizer } = await lockout((cluster as RunningCluster).url);
    expect(attacker).to.deep.equal([401, 401, 401, 401, 401, 429]);
    expect(organizer).to.equal(200);
  });

  it('a client straight at a node cannot change its address with its own X-Forwarded-For', async () => {
    const leader = (cluster as RunningCluster).nodes.find((n) => n.name === 'a')?.url as string;
    // Straight at the leader, naming a new address each time, then the organizer's: still the same client.
    const attacker: number[] = [];
    for (let i = 0; i <= 5; i++) attacker.push((await httpFrom('127.0.6.3', `${leader}/api/v1/admin/state`, 'GET', { authorization: `Bearer wrong-${i}`, 'x-forwarded-for': `203.0.113.${i}` })).status);
    expect(attacker).to.deep.equal([401, 401, 401, 401, 401, 429]);
    expect((await httpFrom('127.0.6.3', `${leader}/api/v1/admin/state`, 'GET', { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`, 'x-forwarded-for': '127.0.6.4' })).status).to.equal(429);
    // The address it named is not locked out: through the balancer, from there, the right token works.
    expect((await httpFrom('127.0.6.4', `${(cluster as RunningCluster).url}/api/v1/admin/state`, 'GET', { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` })).status).to.equal(200);
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

describe('cluster: HAProxy example with the PROXY protocol (SEND_PROXY_V2, PROXY_PROTOCOL=true)', function () {
  this.timeout(60_000);
  let url: string;
  let node: ServerProcess | null = null;
  let haproxy: ChildProcess | null = null;
  let lb = '';

  before(async function () {
    await requirePostgres(this);
    requireTool(this, haproxyMissing());
    url = await createDatabase('exchange_haproxy_pp');
    // One leader behind all three of the example's servers: what is shown here is the header, not failover.
    node = await spawnNode(url, 'leader', { TRUST_PROXY: '127.0.0.1', PROXY_PROTOCOL: 'true', ...LIMITS });
    const at = node.url.replace('http://', '');
    const lbPort = await freePort();
    haproxy = await startBalancer({ lbPort, nodes: [at, at, at], proxyProtocol: true });
    lb = `http://127.0.0.1:${lbPort}`;
  });
  after(async () => {
    if (haproxy !== null) {
      const gone = new Promise<void>((resolve) => (haproxy as ChildProcess).once('exit', () => resolve()));
      haproxy.kill('SIGTERM');
      await gone;
    }
    await node?.kill('SIGTERM');
    if (url !== undefined) await dropDatabase(url);
  });

  it('spectators from many addresses connect, each counted as itself: one past the cap is refused alone', async () => {
    const { open, refused } = await spectators(lb.replace('http', 'ws') + '/ws', 20, 2);
    try {
      expect(refused).to.deep.equal([]);
      expect(open).to.have.length(40);
      expect(await wsFrom('127.0.7.1', lb.replace('http', 'ws') + '/ws')).to.deep.equal({ status: 429, code: 'too_many_connections' });
    } finally {
      for (const ws of open) ws.terminate();
    }
  });

  it("one outsider's wrong admin tokens lock out that outsider, not the organizer; its own X-Forwarded-For changes nothing", async () => {
    const { attacker, organizer } = await lockout(lb, (i) => ({ 'x-forwarded-for': `127.0.6.${10 + i}` }));
    expect(attacker).to.deep.equal([401, 401, 401, 401, 401, 429]);
    expect(organizer).to.equal(200);
  });
});
