// `npm run bench:pg`: the PostgreSQL log. Prints figures, never passes or fails on time.
//  1. sustained events/s through the batch writer (COPY, one transaction per batch) against one INSERT
//     per event, measured in the same run on the same events;
//  2. durable-ack order entry over HTTP (a child-process server, autocannon): orders/s and p99;
//  3. recovery: events/s folded from PostgreSQL against its floor (the same rows decoded and folded on
//     one thread), startup time with a snapshot near the head, and
//     how long takeSnapshot blocks trading on that state (the old way) against the snapshotter's worker.
// BENCH_PG_EVENTS sets the log length (default 300000); BENCH_PG_SECONDS the HTTP run (default 10).
// BENCH_QUICK=1 (bench/quick.ts): every part at 5,000 events (200 by INSERT), the HTTP run 1 s, the
// timer's references 0.3 s each: a check that it runs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { Exchange } from '../src/commands/exchange.ts';
import { isDomainError } from '../src/commands/errors.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { takeSnapshot } from '../src/projections/snapshot.ts';
import { AdmissionClock } from '../src/server/clock.ts';
import { createLogger } from '../src/server/logger.ts';
import { canonicalJson } from '../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../src/events/hash.ts';
import { openPostgresPersistence } from '../src/server/persistence/postgres/postgres-persistence.ts';
import { streamStoredEvents } from '../src/server/persistence/postgres/event-stream.ts';
import type { SnapshotFigures } from '../src/server/persistence/postgres/snapshotter.ts';
import { createDatabase, dropDatabase, postgresUnavailable } from '../test/support/postgres.ts';
import { openInstance, pgConfig } from '../test/postgres/support/harness.ts';
import { RandomSession, type Build } from '../test/postgres/support/random-session.ts';
import { call, PROCESS_ADMIN_TOKEN, spawnServer } from '../test/postgres/support/server-process.ts';
import { quick, setting } from './quick.ts';

// autocannon ships no types; this is the part used here.
interface CannonRequest {
  method: string;
  path: string;
  setupRequest: (req: { path?: string; headers?: Record<string, string>; body?: string }, context: Record<string, unknown>) => { path?: string; headers?: Record<string, string>; body?: string };
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}
type Cannon = (options: { url: string; connections: number; duration: number; requests: CannonRequest[] }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

const EVENTS = setting('BENCH_PG_EVENTS', 300_000, 5_000);
const HTTP_SECONDS = setting('BENCH_PG_SECONDS', 10, 1);
const NAIVE_EVENTS = quick(5_000, 200);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function generateEvents(count: number): { events: ExchangeEvent[]; exchange: Exchange } {
  const exchange = new Exchange();
  const clock = new AdmissionClock();
  const builds = new RandomSession(exchange.state, 7, 40).builds();
  const events: ExchangeEvent[] = [];
  while (events.length < count) {
    try {
      events.push(exchange.execute((builds.next().value as Build)(clock.stamp())));
    } catch (err) {
      if (!isDomainError(err)) throw err;
    }
  }
  return { events, exchange };
}

async function writerThroughput(url: string, events: ExchangeEvent[], batchSize: number): Promise<number> {
  const config = pgConfig(url, { POSTGRES_WRITE_BATCH_SIZE: String(batchSize), SNAPSHOT_EVERY_EVENTS: '0' });
  const persistence = await openPostgresPersistence(config, createLogger('warn'));
  await persistence.recover(new Exchange({ log: persistence.log }));
  const started = performance.now();
  // As the service does: append while the queue has room, wait when it is full.
  for (const event of events) {
    const wait = persistence.capacity();
    if (wait !== null) await wait;
    persistence.log.append(event);
  }
  await persistence.durable(events[events.length - 1]?.seq ?? 0);
  const seconds = (performance.now() - started) / 1000;
  await persistence.close();
  return events.length / seconds;
}

async function naiveInserts(url: string, events: ExchangeEvent[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  await client.query('create table events_naive (like events including all)');
  let hash = GENESIS_HASH;
  const started = performance.now();
  for (const event of events) {
    hash = chainHash(hash, event);
    const text = canonicalJson(event);
    await client.query('insert into events_naive (seq, type, time, hash, canonical) values ($1, $2, $3, $4, $5)', [event.seq, event.type, event.time, hash, text]);
  }
  const seconds = (performance.now() - started) / 1000;
  await client.end();
  return events.length / seconds;
}

async function durableHttp(url: string): Promise<{ rps: number; p50: number; p99: number; non2xx: number; total: number }> {
  const server = await spawnServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: url, POSTGRES_DURABLE_ACKS: 'true', PER_USER_REQUESTS_PER_SECOND: '1000000', SNAPSHOT_EVERY_EVENTS: '0' });
  try {
    const admin = { admin: PROCESS_ADMIN_TOKEN };
    await call(server.url, 'POST', '/api/v1/admin/config/load', admin, {
      trading_enabled: true,
      markets: [{ market_id: 'BENCH-USD', base_asset: 'BENCH', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true }],
    });
    const connections = 64;
    const keys: string[] = [];
    for (let i = 0; i < connections; i++) {
      const r = await call<{ profile: { api_key: string } }>(server.url, 'POST', '/api/v1/admin/users', admin, { username: `bench_${i}` });
      keys.push(r.body.profile.api_key);
    }
    let next = 0;
    // Each connection is one trader submitting an order that rests (no fill, so no position) and then
    // cancelling it: every request is an accepted command with a durable ack, and exposure stays at
    // one lot however long the run.
    const result = await autocannon({
      url: server.url,
      connections,
      duration: HTTP_SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/orders',
          setupRequest: (req, context) => {
            context['key'] ??= keys[next++ % keys.length];
            return { ...req, headers: { 'content-type': 'application/json', 'x-api-key': String(context['key']) }, body: JSON.stringify({ market: 'BENCH-USD', side: 'BUY', price: 50, quantity: 1 }) };
          },
          onResponse: (_status, body, context) => {
            context['order'] = (JSON.parse(body) as { order?: { id: string } }).order?.id ?? 'none';
          },
        },
        {
          method: 'DELETE',
          path: '/api/v1/orders/none',
          setupRequest: (req, context) => ({ ...req, path: `/api/v1/orders/${String(context['order'])}`, headers: { 'x-api-key': String(context['key']) } }),
        },
      ],
    });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, total: result.requests.total };
  } finally {
    await server.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const unavailable = await postgresUnavailable();
  if (unavailable !== null) {
    console.log(`bench:pg skipped: ${unavailable}`);
    return;
  }
  console.log(`bench:pg  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`);
  const generated = performance.now();
  const { events, exchange: source } = generateEvents(EVENTS);
  console.log(`generated ${fmt(events.length)} events from a random session in ${fmt(performance.now() - generated)} ms`);

  const urls: string[] = [];
  try {
    // 1. Batch writer against one INSERT per event.
    const naiveUrl = await createDatabase('bench_pg_naive');
    urls.push(naiveUrl);
    const bootstrap = await openInstance(naiveUrl);
    await bootstrap.close();
    const naive = await naiveInserts(naiveUrl, events.slice(0, NAIVE_EVENTS));
    console.log(`\n1. write path`);
    console.log(`   one INSERT per event (autocommit), ${fmt(NAIVE_EVENTS)} events: ${fmt(naive)} events/s`);
    let logUrl = '';
    for (const batch of (process.env["BENCH_PG_BATCHES"] ?? "128,1024").split(",").map(Number)) {
      const url = await createDatabase(`bench_pg_writer_${batch}`);
      urls.push(url);
      const rate = await writerThroughput(url, events, batch);
      console.log(`   batch writer, COPY, POSTGRES_WRITE_BATCH_SIZE=${batch}${batch === 1024 ? ' (the default)' : ''}, ${fmt(events.length)} events: ${fmt(rate)} events/s (${(rate / naive).toFixed(1)}x one INSERT per event)`);
      logUrl = url;
    }

    // 3. Recovery from that log (before the HTTP run, which adds to another database).
    console.log(`\n3. recovery (${fmt(events.length)} events in the log)`);
    // First in a process of its own, as a restarted service recovers; then here, for the snapshot
    // measures below (this process also holds the generated events, which slows its collections).
    const child = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--recover', logUrl], { stdio: 'inherit', env: process.env });
    if (child.status !== 0) throw new Error(`bench:pg: the recovery process exited with ${child.status}`);
    const full = await openInstance(logUrl, { SNAPSHOT_EVERY_EVENTS: '0' }, { ignoreSnapshots: true });
    const head = full.persistence.recovery;
    console.log(`   the same in this process (which holds the generated events too): ${fmt(head?.folded ?? 0)} events in ${fmt(head?.foldMs ?? 0)} ms = ${fmt((head?.folded ?? 0) / ((head?.foldMs ?? 1) / 1000))} events/s`);
    const state = full.exchange.state;
    const blockedRuns: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const json = JSON.stringify(takeSnapshot(state));
      blockedRuns.push(performance.now() - t);
      bytes = json.length;
    }
    blockedRuns.sort((a, b) => a - b);
    console.log(`   takeSnapshot + JSON.stringify on that state (${fmt(state.books.restingCount)} resting orders, ${fmt(state.fills.count)} fills, ${fmt(bytes / 1024)} KiB): blocks trading ${blockedRuns[2]?.toFixed(1)} ms (median of 5; max ${blockedRuns[4]?.toFixed(1)} ms)`);
    // The snapshotter: the trading thread names the seq; a worker folds the log into its shadow state,
    // serializes and writes it. Measured: what the trading thread is held for, and the longest gap of
    // a 1 ms timer on the trading thread while the worker does the rest (the first snapshot of a
    // process folds the whole log in the worker, the worst case).
    const worstTimerGap = async (during: () => Promise<unknown>): Promise<number> => {
      let lastTick = performance.now();
      let worst = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        worst = Math.max(worst, now - lastTick);
        lastTick = now;
      }, 1);
      await during();
      clearInterval(ticker);
      return worst;
    };
    // References first, in the same run, each for 4 s (about as long as the snapshot takes): the same
    // timer with nothing else to do (the machine's own jitter, and any garbage collection left from
    // the measurements above), and with another thread merely burning a core (what any busy worker
    // costs on 2 cores).
    const referenceMs = quick(4000, 300);
    const idleGap = await worstTimerGap(() => new Promise((resolve) => setTimeout(resolve, referenceMs)));
    const busyGap = await worstTimerGap(() => new Promise((resolve) => new Worker(`const end = Date.now() + ${referenceMs}; while (Date.now() < end);`, { eval: true }).once('exit', resolve)));
    const taking = full.persistence.snapshotter.snapshotNow();
    const gap = await worstTimerGap(() => taking);
    const done: SnapshotFigures = await taking;
    console.log(`   snapshotter (worker thread): trading thread held ${(done.blockedMs * 1000).toFixed(1)} µs; a 1 ms timer on it waited at most ${gap.toFixed(1)} ms (references, same timer as long: idle ${idleGap.toFixed(1)} ms, with a worker thread busy-looping ${busyGap.toFixed(1)} ms) while the worker folded ${fmt(done.folded)} events, serialized ${fmt(done.bytes / 1024)} KiB and wrote it in ${fmt(done.totalMs)} ms`);
    await full.close();
    const startupRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const instance = await openInstance(logUrl);
      startupRuns.push(performance.now() - t);
      await instance.close();
    }
    startupRuns.sort((a, b) => a - b);
    console.log(`   startup with a snapshot at the head (connect, lock, migrate check, load snapshot, fold tail): ${startupRuns[1]?.toFixed(0)} ms (median of 3)`);
    if (source.seq !== events.length) throw new Error('bench: generator and events disagree');

    // 2. Durable acks over HTTP.
    const httpUrl = await createDatabase('bench_pg_http');
    urls.push(httpUrl);
    console.log(`\n2. durable-ack order entry over HTTP (POSTGRES_DURABLE_ACKS=true, 64 connections, ${HTTP_SECONDS} s, server in a child process)`);
    const http = await durableHttp(httpUrl);
    console.log(`   ${fmt(http.rps)} commands/s (submit and cancel alternating), latency p50 ${http.p50} ms, p99 ${http.p99} ms (${fmt(http.total)} requests, ${http.non2xx} not 2xx)`);
  } finally {
    for (const url of urls) await dropDatabase(url);
  }
}

/**
 * The full fold of a log from PostgreSQL, in a fresh process: what a restarted service pays. Then, in
 * the same process, its floor: the rows streamed out with the same COPY, each decoded (JSON.parse) and
 * folded into a state like the service's on this one thread, with no chain to check: what a recovery
 * that folds in order on one thread cannot go below (the pipeline hashes on worker threads, and parses a
 * chunk's rows in one JSON.parse). Recovery/floor is how close it comes.
 */
async function recoverOnly(url: string): Promise<void> {
  const instance = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' }, { ignoreSnapshots: true });
  const head = instance.persistence.recovery;
  const folded = head?.folded ?? 0;
  const rate = folded / ((head?.foldMs ?? 1) / 1000);
  console.log(`   full fold from PostgreSQL (COPY TO, chain verified, a fresh process): ${fmt(folded)} events in ${fmt(head?.foldMs ?? 0)} ms = ${fmt(rate)} events/s`);
  await instance.close();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const floor = new Exchange();
    const started = performance.now();
    for await (const stored of streamStoredEvents(pool, 0)) floor.fold(stored.event);
    const floorRate = floor.seq / ((performance.now() - started) / 1000);
    console.log(`   its floor (the same COPY, each row decoded and folded on one thread, no chain check): ${fmt(floorRate)} events/s; recovery/floor ${(rate / floorRate).toFixed(2)}`);
  } finally {
    await pool.end();
  }
}

const recoverAt = process.argv.indexOf('--recover');
if (recoverAt >= 0) await recoverOnly(process.argv[recoverAt + 1] as string);
else await main();
