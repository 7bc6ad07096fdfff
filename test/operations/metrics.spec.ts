// GET /metrics: a real server on PostgreSQL with its own metrics listener (METRICS_BIND_ADDR), scraped
// and parsed as Prometheus text exposition by a parser library; the named series exist and move after
// traffic (orders, a refusal, a WebSocket connection), and the Grafana dashboard asks only for series
// that exist.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { RunningServer } from '../../src/server/app.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { type Families, histogramCount, labelSets, scrape, value } from '../support/metrics.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';

const DASHBOARD = new URL('../../deploy/grafana/exchange-dashboard.json', import.meta.url);

describe('operations: Prometheus metrics', function () {
  this.timeout(30_000);
  let databaseUrl: string;
  let server: RunningServer;
  const clients: WsTestClient[] = [];

  const admin = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(server.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const order = (key: string, body: Record<string, unknown>) =>
    fetch(`${server.url}/api/v1/orders`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const scrapeOwn = (): Promise<Families> => scrape(server.metricsUrl as string);

  before(async function () {
    await requirePostgres(this);
    databaseUrl = await createDatabase('metrics');
    server = await startTestServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: databaseUrl, METRICS_BIND_ADDR: '127.0.0.1:0', POSTGRES_WRITE_FLUSH_INTERVAL_MS: '1' });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await server?.close();
    if (databaseUrl !== undefined) await dropDatabase(databaseUrl);
  });

  it('serves GET /metrics behind the admin token on the main port, and without one on METRICS_BIND_ADDR only for /metrics', async () => {
    const anonymous = await fetch(`${server.url}/metrics`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('x-error-code')).to.equal('missing_admin_token');
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('x-error-code')).to.equal('invalid_admin_token');
    const main = await scrape(`${server.url}/metrics`, ADMIN_TOKEN);
    expect(main.has('exchange_commands_total')).to.equal(true);

    expect(server.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const own = await scrapeOwn();
    expect([...own.keys()].sort()).to.deep.equal([...main.keys()].sort());
    const other = await fetch((server.metricsUrl as string).replace(/\/metrics$/, '/api/v1/admin/state'));
    expect(other.status).to.equal(404);
    const post = await fetch(server.metricsUrl as string, { method: 'POST' });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('names every series the runbook lists, the process defaults included, with the writer mode ok', async () => {
    const m = await scrapeOwn();
    const expected: Record<string, string> = {
      exchange_commands_total: 'COUNTER',
      exchange_command_refusals_total: 'COUNTER',
      exchange_http_request_duration_seconds: 'HISTOGRAM',
      exchange_http_refusals_total: 'COUNTER',
      exchange_ws_message_duration_seconds: 'HISTOGRAM',
      exchange_ws_refusals_total: 'COUNTER',
      exchange_ws_connections: 'GAUGE',
      exchange_ws_authenticated_connections: 'GAUGE',
      exchange_ws_subscriptions: 'GAUGE',
      exchange_ws_frames_sent_total: 'COUNTER',
      exchange_ws_lagging_subscriptions_dropped_total: 'COUNTER',
      exchange_persistence_mode: 'GAUGE',
      exchange_persistence_queue_depth: 'GAUGE',
      exchange_persistence_in_flight_events: 'GAUGE',
      exchange_persistence_durable_seq: 'GAUGE',
      exchange_persistence_flushes_total: 'COUNTER',
      exchange_persistence_events_enqueued_total: 'COUNTER',
      exchange_persistence_batch_events: 'HISTOGRAM',
      exchange_persistence_commit_duration_seconds: 'HISTOGRAM',
      exchange_log_head_seq: 'GAUGE',
      exchange_cluster_role: 'GAUGE',
      exchange_replication_lag_events: 'GAUGE',
      exchange_replication_lag_seconds: 'GAUGE',
      exchange_live_resting_orders: 'GAUGE',
      exchange_live_orders_kept: 'GAUGE',
      exchange_live_traders: 'GAUGE',
      exchange_live_markets: 'GAUGE',
      exchange_history_items_in_memory: 'GAUGE',
      nodejs_eventloop_lag_p99_seconds: 'GAUGE',
      nodejs_eventloop_lag_seconds: 'GAUGE',
      process_cpu_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
    };
    for (const [name, type] of Object.entries(expected)) expect(m.get(name)?.type, name).to.equal(type);
    expect(value(m, 'exchange_persistence_mode', { mode: 'ok' })).to.equal(1);
    expect(value(m, 'exchange_persistence_mode', { mode: 'stopped' })).to.equal(0);
    // Not a cluster member (no ROLE): no role, and no lag.
    expect(m.get('exchange_cluster_role')?.metrics).to.deep.equal([]);
    expect(value(m, 'exchange_replication_lag_events')).to.equal(0);
  });

  it('moves after orders, a refusal and a WebSocket session; REST routes are labelled by their path template', async () => {
    await admin('POST', '/api/v1/admin/markets', { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true });
    const alice = ((await admin('POST', '/api/v1/admin/users', { username: 'alice' }))['profile'] as { api_key: string }).api_key;
    const bob = ((await admin('POST', '/api/v1/admin/users', { username: 'bob' }))['profile'] as { api_key: string }).api_key;
    const before = await scrapeOwn();

    const ws = await WsTestClient.open(server.wsUrl);
    clients.push(ws);
    ws.send({ op: 'authenticate', api_key: bob });
    await ws.nextType('authenticated');
    ws.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD' });
    await ws.nextType('snapshot');

    for (let i = 0; i < 3; i++) expect((await order(alice, { market: 'BTC-USD', side: 'SELL', price: 100, quantity: 1 })).status).to.equal(201);
    const ack = await ws.request({ op: 'submit_order', request_id: 'm1', market: 'BTC-USD', side: 'BUY', price: 100, quantity: 2 });
    expect(ack.type).to.equal('ack');
    const refused = await order(alice, { market: 'BTC-USD', side: 'SELL', price: 0, quantity: 1 });
    expect(refused.status).to.equal(400);
    const wsRefused = await ws.request({ op: 'cancel_order', request_id: 'm2', order_id: '00000000-0000-4000-8000-000000000000' });
    expect(wsRefused.type).to.equal('reject');
    const unknownOrder = await fetch(`${server.url}/api/v1/orders/00000000-0000-4000-8000-000000000001`, { method: 'DELETE', headers: { 'x-api-key': alice } });
    expect(unknownOrder.status).to.equal(404);
    await ws.next((f) => f.type === 'delta', 'a delta');

    // The writer commits in the background: wait until what was accepted is durable.
    let after = await scrapeOwn();
    for (let i = 0; i < 100 && value(after, 'exchange_persistence_durable_seq') < value(after, 'exchange_log_head_seq'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await scrapeOwn();
    }
    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    const movedCount = (name: string, labels: Record<string, string> = {}) => histogramCount(after, name, labels) - histogramCount(before, name, labels);

    expect(moved('exchange_commands_total', { command: 'SubmitOrder' })).to.equal(4);
    expect(moved('exchange_command_refusals_total', { command: 'CancelOrder', code: 'order_not_found' })).to.equal(2);
    expect(moved('exchange_command_refusals_total', { command: 'SubmitOrder' })).to.equal(1);
    expect(moved('exchange_http_refusals_total', { method: 'POST', route: '/api/v1/orders', code: 'invalid_price' })).to.equal(1);
    expect(moved('exchange_http_refusals_total', { method: 'DELETE', route: '/api/v1/orders/{order_id}', code: 'order_not_found' })).to.equal(1);
    expect(moved('exchange_ws_refusals_total', { op: 'cancel_order', code: 'order_not_found' })).to.equal(1);
    expect(movedCount('exchange_http_request_duration_seconds', { method: 'POST', route: '/api/v1/orders' })).to.equal(4);
    expect(movedCount('exchange_ws_message_duration_seconds', { op: 'submit_order' })).to.equal(1);
    expect(movedCount('exchange_ws_message_duration_seconds', { op: 'subscribe' })).to.equal(1);
    // No raw URL ever becomes a label.
    for (const labels of labelSets(after, 'exchange_http_request_duration_seconds')) expect(labels['route']).to.not.match(/[0-9a-f]{8}-/);
    expect(value(after, 'exchange_ws_connections')).to.equal(1);
    expect(value(after, 'exchange_ws_authenticated_connections')).to.equal(1);
    expect(value(after, 'exchange_ws_subscriptions')).to.equal(1);
    expect(moved('exchange_ws_frames_sent_total')).to.be.at.least(6);
    expect(moved('exchange_persistence_events_enqueued_total')).to.equal(4);
    expect(moved('exchange_persistence_flushes_total')).to.be.at.least(1);
    expect(movedCount('exchange_persistence_batch_events')).to.equal(moved('exchange_persistence_flushes_total'));
    expect(movedCount('exchange_persistence_commit_duration_seconds')).to.equal(moved('exchange_persistence_flushes_total'));
    expect(value(after, 'exchange_log_head_seq')).to.equal(server.context.service.exchange.seq);
    expect(value(after, 'exchange_persistence_queue_depth')).to.equal(0);
    // The live state's sizes: one of alice's sells rests (bob's buy of 2 took two), three orders ended;
    // with PostgreSQL the history holds nothing in memory once it is stored.
    expect(value(after, 'exchange_live_resting_orders')).to.equal(1);
    expect(value(after, 'exchange_live_orders_kept')).to.equal(4);
    expect(value(after, 'exchange_live_traders')).to.equal(2);
    expect(value(after, 'exchange_live_markets')).to.equal(1);
    expect(value(after, 'exchange_history_items_in_memory', { backend: 'postgres' })).to.equal(0);

    await ws.close();
    clients.length = 0;
    let closed = await scrapeOwn();
    for (let i = 0; i < 50 && value(closed, 'exchange_ws_connections') !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      closed = await scrapeOwn();
    }
    expect(value(closed, 'exchange_ws_connections')).to.equal(0);
    expect(value(closed, 'exchange_ws_subscriptions')).to.equal(0);
  });

  it('the Grafana dashboard is valid JSON whose every PromQL query names series that /metrics serves', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { type: string; targets?: { expr: string }[] }[]; templating: { list: { query: string }[] } };
    const m = await scrapeOwn();
    const queries = [...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)), ...dashboard.templating.list.map((v) => v.query)];
    expect(dashboard.panels.filter((p) => p.type !== 'row').length).to.be.at.least(15);
    const names = new Set<string>();
    for (const q of queries) for (const token of q.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []) if (/^(exchange|nodejs|process)_/.test(token)) names.add(token);
    expect(names.size).to.be.at.least(20);
    for (const name of names) {
      const histogram = /_(bucket|sum|count)$/.exec(name);
      const base = histogram === null ? name : name.slice(0, histogram.index);
      const family = m.get(name) ?? (histogram === null ? undefined : m.get(base));
      expect(family, `${name} is not served by /metrics`).to.not.equal(undefined);
      if (family !== undefined && family.name !== name) expect(family.type, name).to.equal('HISTOGRAM');
    }
  });
});
