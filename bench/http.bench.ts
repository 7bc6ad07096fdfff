// `npm run bench:http`: HTTP order entry. autocannon drives POST /api/v1/orders (crossing and resting
// orders from many traders, the per-trader limit raised for the run) against the full server, and in
// the same run against a raw node:http server that parses the same JSON body and answers a fixed 201.
// Each server runs in its own process, and so does the load generator (autocannon in a child process
// of its own, never the server's nor this driver's), which sends both servers the same seeded request
// stream: same bodies, same headers (the raw server is given keys of the same shape), same connections.
// Prints orders/s, p50/p99 latency, the server's CPU time per request (user + system, read from the
// server process; it moves less than req/s when other work shares the machine) and the ratios to the
// raw server. BENCH_ROUNDS=N repeats raw and full N times, alternating which goes first, and prints
// the median ratios. Variants, printed beside the standard runs: BENCH_PIPELINING=P the same pair with
// P requests in flight per connection; BENCH_ENGINE_STUB=1 a pair in which the full server answers
// orders without deciding them (what the HTTP path costs on its own, see stubEngine). With
// BENCH_SCRAPE_ROUNDS=N it also measures the full server scraped at GET /metrics every BENCH_SCRAPE_MS
// (1000) against fresh unscraped runs of the same run, and prints that ratio (the /metrics goal: at
// most 2% lower). Never passes or fails on time. BENCH_QUICK=1 (bench/quick.ts): the standard pair once,
// 10 connections and 20 traders, 1 s after a 1 s warm-up (a check that it runs; the variants stay opt-in).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { prng } from '../replay/prng.ts';
import { setting } from './quick.ts';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (req: { headers: Record<string, string>; body?: string }) => { headers: Record<string, string>; body?: string };
}
type Cannon = (options: { url: string; connections: number; duration: number; pipelining: number; requests: CannonRequest[] }) => Promise<CannonResult>;

const CONNECTIONS = setting('BENCH_CONNECTIONS', 100, 10);
const DURATION = setting('BENCH_SECONDS', 10, 1);
const WARMUP = setting('BENCH_WARMUP_SECONDS', 3, 1);
const TRADERS = setting('BENCH_TRADERS', 200, 20);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 1);
/** 1 (HTTP/1.1 without pipelining) for the standard runs; BENCH_PIPELINING adds a pair with this many. */
const PIPELINING = Number(process.env['BENCH_PIPELINING'] ?? 1);
/** BENCH_ENGINE_STUB=1 adds a pair with the engine left out of order entry (the HTTP path's own cost). */
const STUB_ENGINE = process.env['BENCH_ENGINE_STUB'] === '1';
const MARKETS = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'XRP-USD'];
const ADMIN_TOKEN = 'bench-admin-token';
const SCRAPE_ROUNDS = Number(process.env['BENCH_SCRAPE_ROUNDS'] ?? 0);
const SCRAPE_MS = Number(process.env['BENCH_SCRAPE_MS'] ?? 1000);

/** What the driver asks a child over IPC, and what the child answers. */
type ToServer = { readonly op: 'cpu' };
type ToLoad = { readonly op: 'run'; readonly url: string; readonly keys: readonly string[]; readonly seconds: number; readonly pipelining: number };
interface CpuAnswer {
  readonly cpuMicros: number;
}
interface LoadAnswer {
  readonly result: CannonResult;
  /** The load generator's own CPU time during the run, in microseconds. */
  readonly cpuMicros: number;
}

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

// ---- child processes -------------------------------------------------------------------------------

/** A server child answers the driver's CPU questions over IPC. */
function answerCpu(): void {
  process.on('message', (m: ToServer) => {
    if (m.op === 'cpu') process.send?.({ cpuMicros: cpuMicros() } satisfies CpuAnswer);
  });
}

async function serveRaw(): Promise<void> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"ok":true}');
    });
  });
  answerCpu();
  server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
}

/**
 * `stub`: the engine left out of order entry, to show what the HTTP path costs on its own. After the
 * first submission (decided for real), every SubmitOrder is only built (stamp and ids) and answered
 * with that first order's reply, built from the state as for a real one; nothing is appended or
 * published. Other commands (provisioning) run for real.
 */
function stubEngine(service: import('../src/server/service.ts').ExchangeService, clock: import('../src/server/clock.ts').AdmissionClock): void {
  const real = service.executeNow.bind(service);
  let sample: import('../src/events/types.ts').ExchangeEvent | null = null;
  const stubbed = <V>(build: Parameters<typeof real>[0], reply?: (event: import('../src/events/types.ts').ExchangeEvent, view: V) => void, view?: (event: import('../src/events/types.ts').ExchangeEvent) => V) => {
    if (sample === null || build(clock.stamp()).type !== 'SubmitOrder') {
      const event = real(build, reply, view);
      if (event?.type === 'OrderSubmitted') sample = event;
      return event;
    }
    reply?.(sample, view === undefined ? (undefined as V) : view(sample));
    return sample;
  };
  service.executeNow = stubbed;
}

async function serveFull(engine: 'real' | 'stub'): Promise<void> {
  const { loadConfig } = await import('../src/server/config.ts');
  const { createLogger } = await import('../src/server/logger.ts');
  const config = loadConfig({ ...process.env, BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, PER_USER_REQUESTS_PER_SECOND: '1000000', LOG_LEVEL: 'warn' });
  const logger = createLogger(config.logLevel);
  const { startServer } = await import('../src/server/app.ts');
  const server = await startServer(config, logger);
  if (engine === 'stub') stubEngine(server.context.service, server.context.clock);
  answerCpu();
  process.stdout.write(`PORT ${server.port}\n`);
}

/**
 * The load generator's process: autocannon and the request stream live here, so generating requests
 * never takes time from a server, and both servers get the same stream (one seeded generator per
 * target, kept across that target's warm-up and measured run).
 */
function serveLoad(): void {
  const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;
  let target = '';
  let random = prng(42);
  let n = 0;
  process.on('message', (m: ToLoad) => {
    if (m.url !== target) {
      target = m.url;
      random = prng(42);
      n = 0;
    }
    const keys = m.keys;
    // Prices uniform in 1000 +/- 10 on both sides: about half of the orders cross the resting ones.
    const requests: CannonRequest[] = [
      {
        method: 'POST',
        path: '/api/v1/orders',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          const key = keys[n++ % keys.length] as string;
          const market = MARKETS[Math.floor(random() * MARKETS.length)] as string;
          const side = random() < 0.5 ? 'BUY' : 'SELL';
          const price = 990 + Math.floor(random() * 21);
          req.headers = { 'content-type': 'application/json', 'x-api-key': key };
          req.body = JSON.stringify({ market, side, price, quantity: 1 + Math.floor(random() * 3) });
          return req;
        },
      },
    ];
    const before = cpuMicros();
    void autocannon({ url: m.url, connections: CONNECTIONS, duration: m.seconds, pipelining: m.pipelining, requests }).then((result) => {
      process.send?.({ result, cpuMicros: cpuMicros() - before } satisfies LoadAnswer);
    });
  });
}

// ---- driver ----------------------------------------------------------------------------------------

interface Child {
  readonly child: ChildProcess;
  /** One request over IPC, one answer. */
  ask<T>(message: ToServer | ToLoad): Promise<T>;
}

function child(mode: string): Child {
  const proc = spawn(process.execPath, [...process.execArgv, import.meta.filename, mode], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: process.env });
  return {
    child: proc,
    ask: <T>(message: ToServer | ToLoad) =>
      new Promise<T>((resolve, reject) => {
        const onExit = (code: number | null): void => reject(new Error(`${mode} exited with ${code}`));
        proc.once('exit', onExit);
        proc.once('message', (answer) => {
          proc.off('exit', onExit);
          resolve(answer as T);
        });
        proc.send(message);
      }),
  };
}

function start(mode: string): Promise<Child & { url: string }> {
  const c = child(mode);
  return new Promise((resolve, reject) => {
    let out = '';
    c.child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m !== null) resolve({ ...c, url: `http://127.0.0.1:${m[1]}` });
    });
    c.child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code} before listening`)));
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

async function admin(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Measured {
  readonly result: CannonResult;
  /** The server's CPU time (user + system) per answered request, in microseconds. */
  readonly serverMicrosPerRequest: number;
  /** The server's CPU time over the run's wall time (1 = one core busy all the time). */
  readonly serverBusy: number;
  readonly loadBusy: number;
}

/** Warm-up, then the measured run, both from a fresh load generator process; the server's CPU time is read around the measured run. */
async function run(label: string, server: Child & { url: string }, keys: readonly string[], pipelining = 1): Promise<Measured> {
  const load = child('load');
  try {
    if (WARMUP > 0) await load.ask<LoadAnswer>({ op: 'run', url: server.url, keys, seconds: WARMUP, pipelining });
    const before = await server.ask<CpuAnswer>({ op: 'cpu' });
    const started = performance.now();
    const { result, cpuMicros: loadMicros } = await load.ask<LoadAnswer>({ op: 'run', url: server.url, keys, seconds: DURATION, pipelining });
    const wallMicros = (performance.now() - started) * 1000;
    const after = await server.ask<CpuAnswer>({ op: 'cpu' });
    const serverMicros = after.cpuMicros - before.cpuMicros;
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, s]) => `${code}:${s.count}`)
      .join(' ');
    const m: Measured = { result, serverMicrosPerRequest: serverMicros / Math.max(1, result.requests.total), serverBusy: serverMicros / wallMicros, loadBusy: loadMicros / wallMicros };
    process.stdout.write(
      `${label.padEnd(24)} ${result.requests.average.toFixed(0).padStart(8)} req/s  p50 ${String(result.latency.p50).padStart(3)} ms  p99 ${String(result.latency.p99).padStart(3)} ms  ` +
        `server ${m.serverMicrosPerRequest.toFixed(1).padStart(5)} µs CPU/req, busy ${(m.serverBusy * 100).toFixed(0)}%; load generator busy ${(m.loadBusy * 100).toFixed(0)}%  (${codes}; errors ${result.errors}, timeouts ${result.timeouts})\n`,
    );
    return m;
  } finally {
    await stop(load.child);
  }
}

/** Keys of the same shape as the exchange's, for the raw server (which ignores them). */
function fakeKeys(): string[] {
  return Array.from({ length: TRADERS }, () => `exch_${randomBytes(16).toString('hex')}`);
}

async function measureRaw(label: string, pipelining = 1): Promise<Measured> {
  const raw = await start('serve-raw');
  try {
    return await run(label, raw, fakeKeys(), pipelining);
  } finally {
    await stop(raw.child);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    `HTTP order entry: ${CONNECTIONS} connections, ${DURATION} s (after ${WARMUP} s warm-up), ${TRADERS} traders, ${MARKETS.length} markets; ${cpus().length} cores, node ${process.version}; load average ${load}\n`,
  );
  const throughput: number[] = [];
  const cost: number[] = [];
  let firstFull: Measured | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    const pair: { raw?: Measured; full?: Measured } = {};
    for (const which of round % 2 === 0 ? ['raw', 'full'] : ['full', 'raw']) {
      if (which === 'raw') pair.raw = await measureRaw('raw node:http');
      else {
        const full = await measureFull('full POST /orders', false);
        pair.full = full.measured;
        process.stdout.write(`  events in the log after the run: ${full.events}\n`);
      }
    }
    const { raw, full } = pair as { raw: Measured; full: Measured };
    firstFull ??= full;
    throughput.push(full.result.requests.average / raw.result.requests.average);
    cost.push(raw.serverMicrosPerRequest / full.serverMicrosPerRequest);
    process.stdout.write(`  round ${round + 1}: full/raw ${pct(throughput[round] as number)} of the req/s, raw/full ${pct(cost[round] as number)} of the CPU per request\n`);
  }
  process.stdout.write(
    `ratio full/raw: ${pct(median(throughput))} of the req/s, ${pct(median(cost))} by CPU per request (median of ${ROUNDS}; target >= 50%), full p99 ${firstFull?.result.latency.p99} ms (target < 20 ms); load average now ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`,
  );
  if (PIPELINING > 1) {
    // A variant beside the standard runs, never in place of them: clients that pipeline.
    const raw = await measureRaw(`raw, pipelining ${PIPELINING}`, PIPELINING);
    const full = (await measureFull(`full, pipelining ${PIPELINING}`, false, PIPELINING)).measured;
    process.stdout.write(`ratio full/raw with pipelining ${PIPELINING}: ${pct(full.result.requests.average / raw.result.requests.average)} of the req/s, ${pct(raw.serverMicrosPerRequest / full.serverMicrosPerRequest)} by CPU per request\n`);
  }
  if (STUB_ENGINE) {
    // A variant beside the standard runs: the same HTTP path with the engine left out (see stubEngine).
    const raw = await measureRaw('raw node:http');
    const stub = (await measureFull('full, engine stubbed', false, 1, 'stub')).measured;
    process.stdout.write(`ratio (engine stubbed)/raw: ${pct(stub.result.requests.average / raw.result.requests.average)} of the req/s, ${pct(raw.serverMicrosPerRequest / stub.serverMicrosPerRequest)} by CPU per request: what the HTTP path costs without the engine\n`);
  }
  if (SCRAPE_ROUNDS > 0 && firstFull !== null) await compareScraping(firstFull.result);
}

/** One fresh server process: markets and traders provisioned, then the order load; optionally scraped. */
async function measureFull(label: string, scraped: boolean, pipelining = 1, engine: 'real' | 'stub' = 'real'): Promise<{ measured: Measured; result: CannonResult; events: number; scrapes: number }> {
  const full = await start(engine === 'stub' ? 'serve-stub' : 'serve-full');
  const keys: string[] = [];
  for (const m of MARKETS) {
    const [base, quote] = m.split('-');
    await admin(full.url, 'POST', '/api/v1/admin/markets', { market_id: m, base_asset: base, quote_asset: quote, tick_size: 1, min_order_quantity: 1, reference_price: 1000, enabled: true });
  }
  for (let i = 0; i < TRADERS; i++) keys.push(((await admin(full.url, 'POST', '/api/v1/admin/users', { username: `bench-${i}` })) as { profile: { api_key: string } }).profile.api_key);

  // The scraper: GET /metrics every SCRAPE_MS, as a Prometheus would, for the whole run (warm-up included).
  let scrapes = 0;
  let scraping = scraped;
  const scraper = (async () => {
    while (scraping) {
      const res = await fetch(`${full.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
      await res.text();
      scrapes++;
      await new Promise((resolve) => setTimeout(resolve, SCRAPE_MS));
    }
  })();
  const measured = await run(label, full, keys, pipelining);
  const result = measured.result;
  scraping = false;
  await scraper;
  if (scraped) {
    // What one scrape costs the server, timed on the idle server after the run (the series of a server
    // that took the whole load): an upper bound on the event-loop time a scrape takes from order entry.
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      const res = await fetch(`${full.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const text = await res.text();
      times.push(performance.now() - t);
      if (i === 0) process.stdout.write(`  /metrics: ${text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length} samples, ${text.length} bytes`);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(`; idle scrape round trip p50 ${(times[100] as number).toFixed(2)} ms, p99 ${(times[198] as number).toFixed(2)} ms\n`);
  }
  const state = (await admin(full.url, 'GET', '/api/v1/admin/state')) as { persistence: { total_enqueued: number } };
  await stop(full.child);
  return { measured, result, events: state.persistence.total_enqueued, scrapes };
}

/**
 * BENCH_SCRAPE_ROUNDS (default 0): the same load on fresh servers without and with a /metrics scraper,
 * alternating which goes first, so drift of a shared machine falls on both sides alike.
 */
async function compareScraping(firstUnscraped: CannonResult): Promise<void> {
  const without: number[] = [firstUnscraped.requests.average];
  const withScraper: number[] = [];
  for (let round = 0; round < SCRAPE_ROUNDS; round++) {
    const order = round % 2 === 0 ? [true, false] : [false, true];
    for (const scraped of order) {
      if (!scraped && round === 0) continue;
      const m = await measureFull(scraped ? `full, /metrics each ${SCRAPE_MS} ms` : 'full POST /orders', scraped);
      (scraped ? withScraper : without).push(m.result.requests.average);
      if (scraped) process.stdout.write(`  (${m.scrapes} scrapes during the run)\n`);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratio = mean(withScraper) / mean(without);
  process.stdout.write(`scraped/unscraped: ${(ratio * 100).toFixed(1)}% over ${withScraper.length} + ${without.length} runs (target >= 98%); without ${without.map((x) => x.toFixed(0)).join(', ')} req/s, with ${withScraper.map((x) => x.toFixed(0)).join(', ')} req/s\n`);
}

const mode = process.argv[2];
// Exit normally on the driver's SIGTERM, so `--cpu-prof` in NODE_OPTIONS writes the servers' profiles.
if (mode !== undefined) process.once('SIGTERM', () => process.exit(0));
if (mode === 'serve-raw') void serveRaw();
else if (mode === 'load') serveLoad();
else if (mode === 'serve-full') void serveFull('real');
else if (mode === 'serve-stub') void serveFull('stub');
else await main();
