// `npm run bench:http`: HTTP order entry. autocannon drives POST /api/v1/orders (crossing and resting
// orders from many traders, the per-trader limit raised for the run) against the full server, and in
// the same run against a raw node:http server that parses the same JSON body and answers a fixed 201.
// Each server runs in its own process; autocannon runs in this one. Prints orders/s, p50/p99 latency
// and the ratio to the raw server. With BENCH_SCRAPE_ROUNDS=N it also measures the full server scraped
// at GET /metrics every BENCH_SCRAPE_MS (1000) against fresh unscraped runs of the same run, and prints
// that ratio (the /metrics goal: at most 2% lower). Never passes or fails on time.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { prng } from '../replay/prng.ts';

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

const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 100);
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 10);
const WARMUP = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 3);
const TRADERS = Number(process.env['BENCH_TRADERS'] ?? 200);
const MARKETS = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'XRP-USD'];
const ADMIN_TOKEN = 'bench-admin-token';
const SCRAPE_ROUNDS = Number(process.env['BENCH_SCRAPE_ROUNDS'] ?? 0);
const SCRAPE_MS = Number(process.env['BENCH_SCRAPE_MS'] ?? 1000);
const SAMPLE = JSON.stringify({ market: 'BTC-USD', side: 'BUY', price: 1000, quantity: 1 });

// ---- child processes -------------------------------------------------------------------------------

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
  server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
}

async function serveFull(): Promise<void> {
  const { loadConfig } = await import('../src/server/config.ts');
  const { createLogger } = await import('../src/server/logger.ts');
  const config = loadConfig({ ...process.env, BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, PER_USER_REQUESTS_PER_SECOND: '1000000', LOG_LEVEL: 'warn' });
  const logger = createLogger(config.logLevel);
  const { startServer } = await import('../src/server/app.ts');
  const server = await startServer(config, logger);
  process.stdout.write(`PORT ${server.port}\n`);
}

// ---- driver ----------------------------------------------------------------------------------------

function start(mode: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, mode], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m !== null) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code} before listening`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function admin(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function run(label: string, url: string, requests: CannonRequest[]): Promise<CannonResult> {
  if (WARMUP > 0) await autocannon({ url, connections: CONNECTIONS, duration: WARMUP, pipelining: 1, requests });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, pipelining: 1, requests });
  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, s]) => `${code}:${s.count}`)
    .join(' ');
  process.stdout.write(`${label.padEnd(22)} ${result.requests.average.toFixed(0).padStart(8)} req/s  p50 ${String(result.latency.p50).padStart(3)} ms  p99 ${String(result.latency.p99).padStart(3)} ms  (${codes}; errors ${result.errors}, timeouts ${result.timeouts})\n`);
  return result;
}

async function main(): Promise<void> {
  process.stdout.write(`HTTP order entry: ${CONNECTIONS} connections, ${DURATION} s (after ${WARMUP} s warm-up), ${TRADERS} traders, ${MARKETS.length} markets; ${cpus().length} cores, node ${process.version}\n`);

  const raw = await start('serve-raw');
  const rawResult = await run('raw node:http', raw.url, [{ method: 'POST', path: '/api/v1/orders', headers: { 'content-type': 'application/json' }, body: SAMPLE }]);
  await stop(raw.child);

  const first = await measureFull('full POST /orders', false);
  const ratio = first.result.requests.average / rawResult.requests.average;
  process.stdout.write(`events in the log after the run: ${first.events}\n`);
  process.stdout.write(`ratio full/raw: ${(ratio * 100).toFixed(1)}% (target >= 40%), full p99 ${first.result.latency.p99} ms (target < 20 ms)\n`);
  if (SCRAPE_ROUNDS > 0) await compareScraping(first.result);
}

/** One fresh server process: markets and traders provisioned, then the order load; optionally scraped. */
async function measureFull(label: string, scraped: boolean): Promise<{ result: CannonResult; events: number; scrapes: number }> {
  const full = await start('serve-full');
  const keys: string[] = [];
  for (const m of MARKETS) {
    const [base, quote] = m.split('-');
    await admin(full.url, 'POST', '/api/v1/admin/markets', { market_id: m, base_asset: base, quote_asset: quote, tick_size: 1, min_order_quantity: 1, reference_price: 1000, enabled: true });
  }
  for (let i = 0; i < TRADERS; i++) keys.push(((await admin(full.url, 'POST', '/api/v1/admin/users', { username: `bench-${i}` })) as { profile: { api_key: string } }).profile.api_key);

  // Prices uniform in 1000 +/- 10 on both sides: about half of the orders cross the resting ones.
  const random = prng(42);
  let n = 0;
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
  const result = await run(label, full.url, requests);
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
  return { result, events: state.persistence.total_enqueued, scrapes };
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
else if (mode === 'serve-full') void serveFull();
else await main();
