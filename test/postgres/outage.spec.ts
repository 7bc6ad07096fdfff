// Faults between the service and PostgreSQL, through a TCP proxy: an outage under load (trading goes
// on from memory, the queue fills, backpressure holds new commands, and after the database is back
// every event is stored exactly once, in order), and a COMMIT whose reply is lost.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { Exchange } from '../../src/commands/exchange.ts';
import { PostgresHistory } from '../../src/server/history/postgres-history.ts';
import { canonicalJson } from '../../src/events/canonical.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { BASE_URL, createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { checkChain, openInstance, sql, storedLog, until } from './support/harness.ts';
import { RandomSession, runConcurrently, runSession } from './support/random-session.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';
import { call } from './support/server-process.ts';

describe('PostgreSQL faults', function () {
  this.timeout(60_000);
  const urls: string[] = [];
  let proxy: TcpProxy;

  before(async function () {
    await requirePostgres(this);
    proxy = new TcpProxy(BASE_URL);
    await proxy.start();
  });
  afterEach(() => proxy?.restore());
  after(async () => {
    await proxy?.close();
    for (const url of urls) await dropDatabase(url);
  });

  it('an outage under load: retrying, trading goes on, backpressure at capacity; afterwards every event exactly once', async () => {
    const url = await createDatabase('exchange_outage');
    urls.push(url);
    const instance = await openInstance(
      proxy.via(url),
      { POSTGRES_WRITE_QUEUE_CAPACITY: '300', POSTGRES_WRITE_BATCH_SIZE: '50', POSTGRES_WRITE_FLUSH_INTERVAL_MS: '2', POSTGRES_WRITE_RETRY_BACKOFF_MS: '50' },
      { flushTimeoutMs: 2000 },
    );
    try {
      const session = new RandomSession(instance.exchange.state, 71);
      const before = await runSession(instance.service, session, 300);
      await until('the first events committed', () => instance.persistence.status().durable_seq === instance.exchange.seq);
      expect(instance.persistence.status().mode).to.equal('ok');

      proxy.cut();
      const durableAtCut = instance.persistence.writer.durableSeq;
      const load = runConcurrently(instance.service, session, 1500);
      let settled = false;
      void load.finally(() => (settled = true));

      await until('mode retrying', () => instance.persistence.status().mode === 'retrying');
      await until('the queue at capacity', () => instance.persistence.status().queue_depth >= 300);
      const during = instance.persistence.status();
      // Trading went on from memory while nothing could be written...
      expect(instance.exchange.seq - durableAtCut).to.be.at.least(300);
      expect(during.durable_seq).to.equal(durableAtCut);
      expect(during.last_error).to.be.a('string');
      // ...and backpressure now holds the rest: the queue stays at capacity (plus at most the batch in
      // flight), and commands wait.
      expect(during.queue_depth).to.be.at.most(300);
      expect(instance.persistence.capacity()).to.not.equal(null);
      const heldSeq = instance.exchange.seq;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(instance.exchange.seq, 'no command admitted while the queue is full').to.equal(heldSeq);
      expect(settled).to.equal(false);
      expect(instance.persistence.status().mode).to.equal('retrying');

      proxy.restore();
      const after = await load;
      expect(after.accepted).to.be.greaterThan(600);
      await until('mode ok and everything durable', () => instance.persistence.status().mode === 'ok' && instance.persistence.status().durable_seq === instance.exchange.seq);
      const stored = await storedLog(url);
      checkChain(stored);
      expect(stored.length).to.equal(instance.exchange.seq);
      // Every command the service accepted is stored exactly as it was decided.
      const bySeq = new Map(stored.map((r) => [r.event.seq, canonicalJson(r.event)]));
      for (const e of [...before.events, ...after.events]) expect(bySeq.get(e.seq), `seq ${e.seq}`).to.equal(canonicalJson(e));
    } finally {
      await instance.close();
    }
    // And a restart from that log gives the state the service had.
    const restarted = await openInstance(url);
    try {
      expect(restarted.exchange.seq).to.equal(instance.exchange.seq);
      expect(stateHash(restarted.exchange.state)).to.equal(stateHash(instance.exchange.state));
    } finally {
      await restarted.close();
    }
  });

  it('a COMMIT whose reply is lost: the writer finds the batch stored and writes nothing twice', async () => {
    const url = await createDatabase('exchange_lost_ack');
    urls.push(url);
    const instance = await openInstance(proxy.via(url), { POSTGRES_WRITE_BATCH_SIZE: '20', POSTGRES_WRITE_FLUSH_INTERVAL_MS: '1', POSTGRES_WRITE_RETRY_BACKOFF_MS: '50' });
    try {
      const session = new RandomSession(instance.exchange.state, 81);
      await runSession(instance.service, session, 100);
      await until('idle', () => instance.persistence.status().durable_seq === instance.exchange.seq);
      const flushesBefore = instance.persistence.status().total_flushes;
      proxy.cutAfterNextCommits(3);
      await runSession(instance.service, session, 1000);
      await until('mode ok and everything durable', () => instance.persistence.status().mode === 'ok' && instance.persistence.status().durable_seq === instance.exchange.seq);
      expect(proxy.commitsCut).to.equal(3);
      // Those commits did happen: the writer found them stored instead of writing them again.
      expect(instance.persistence.writer.unacknowledgedCommitsFound).to.equal(3);
      const status = instance.persistence.status();
      expect(status.last_error).to.match(/writing seq \d+\.\.\d+ failed/);
      expect(status.total_flushes).to.be.greaterThan(flushesBefore);
      const stored = await storedLog(url);
      checkChain(stored);
      expect(stored.length).to.equal(instance.exchange.seq);
    } finally {
      await instance.close();
    }
  });

  it('a connection lost in the middle of a history read is logged, never an uncaught error; the messages cache loads once the database is back', async () => {
    const url = await createDatabase('exchange_history_outage');
    urls.push(url);
    // The schema, and a message in the log for the cache to find.
    const instance = await openInstance(url);
    try {
      instance.exchange.execute({ type: 'PostAdminMessage', time: '2026-01-01T00:00:00.000000Z', message_id: 'm-1', target_username: null, market: null, level: 'info', title: null, body: 'hello' });
      await instance.persistence.durable(instance.exchange.seq);
    } finally {
      await instance.close();
    }
    await sql(url, "insert into order_history select 'o' || g, 't', 'M', 'BUY', 1, 1, 0, 'filled', 1, 1, 'LIMIT', 'GTC', 'NONE', 'c' || g, 't0', g, g, 't0' from generate_series(1, 10) g");
    // The state the history follows: the log folded, at its head.
    const exchange = new Exchange();
    for (const row of await storedLog(url)) exchange.fold(row.event);
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const said = (msg: string): boolean => lines.some((l) => l['msg'] === msg);
    // The filter's COPY and the messages' query wait on locks, so the outage finds both with their
    // connections checked out and a query running.
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table order_history, events in access exclusive mode');
    const history = new PostgresHistory({ databaseUrl: proxy.via(url), feed: null, logger: pino({ level: 'info' }, sink) });
    try {
      history.follow(exchange.state);
      const waiting = async (): Promise<number> => Number((await sql<{ n: string }>(url, "select count(*) as n from pg_stat_activity where application_name = 'exchange-history' and wait_event_type = 'Lock'"))[0]?.n);
      await until('both reads waiting on their locks', async () => (await waiting()) === 2);
      proxy.cut();
      await until('both failures logged', () => said('history: client order id filter not loaded; client order ids are looked up in the database') && said('history: recent messages not loaded; they are read from the database until a later load succeeds'));
      await locker.query('rollback');
      // While the database is away, the messages are history_unavailable; once it is back, the next
      // read loads the cache, and later reads are answered from memory, away or not.
      let refused: unknown = null;
      try {
        await history.messages(10);
      } catch (err) {
        refused = err;
      }
      expect(refused).to.have.property('code', 'history_unavailable');
      proxy.restore();
      expect((await history.messages(10)).map((m) => m.body)).to.deep.equal(['hello']);
      await until('the cache loaded', () => Array.isArray(history.messages(10)));
      proxy.cut();
      const away = history.messages(10);
      expect(Array.isArray(away), 'answered from memory').to.equal(true);
      expect((away as { body: string }[]).map((m) => m.body)).to.deep.equal(['hello']);
      proxy.restore();
    } finally {
      await locker.end();
      await history.close();
    }
  });

  it('GET /health turns degraded while the database is away, the service keeps serving, and recovers', async () => {
    const url = await createDatabase('exchange_health');
    urls.push(url);
    const server = await startTestServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: proxy.via(url), POSTGRES_WRITE_RETRY_BACKOFF_MS: '50' });
    try {
      const admin = { admin: ADMIN_TOKEN };
      expect((await call<{ status: string }>(server.url, 'GET', '/health')).body.status).to.equal('ok');
      proxy.cut();
      const user = await call<{ profile: { api_key: string } }>(server.url, 'POST', '/api/v1/admin/users', admin, { username: 'during_outage' });
      expect(user.status, 'commands are accepted from memory').to.equal(201);
      let health = await call<{ status: string; persistence: { mode: string; queue_depth: number; last_error: string | null } }>(server.url, 'GET', '/health');
      await until('degraded', async () => {
        health = await call(server.url, 'GET', '/health');
        return health.body.status === 'degraded';
      });
      expect(health.body.persistence.mode).to.equal('retrying');
      expect(health.body.persistence.last_error).to.be.a('string');
      const state = await call<{ persistence: Record<string, unknown> }>(server.url, 'GET', '/api/v1/admin/state', admin);
      expect(state.status, JSON.stringify(state.body)).to.equal(200);
      expect(state.body.persistence).to.include.all.keys('backend', 'mode', 'queue_depth', 'in_flight_ops', 'total_enqueued', 'total_flushes', 'last_error', 'flush_latency_ms', 'durable_seq');
      expect(state.body.persistence['in_flight_ops']).to.equal(1);
      proxy.restore();
      await until('ok again', async () => (await call<{ status: string }>(server.url, 'GET', '/health')).body.status === 'ok');
      const stored = await storedLog(url);
      checkChain(stored);
      expect(stored.map((r) => r.event.type)).to.deep.equal(['TraderProvisioned']);
    } finally {
      await server.close();
    }
  });
});
