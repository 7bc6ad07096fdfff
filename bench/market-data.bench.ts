// `npm run bench:market-data` (also run by `npm run bench:ws`): order entry over HTTP (16 loops, one
// market) while the market is watched by nobody, by 1,000 and 3,000 l3 subscribers, and by 3,000 and
// 10,000 spectators on l2 + ticker. The server, the order loops and each subscriber population run in
// processes of their own. Prints orders/s, frames/s delivered, the ratio to the unwatched rate measured
// in the same run, and the load average at each figure (the machine is shared). Never passes or fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { WebSocket } from 'ws';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 6);
const LOOPS = 16;
const MARKET = 'BENCH-USD';
const ADMIN_TOKEN = 'bench-admin-token';
const SCENARIOS = (process.env['BENCH_WATCHERS'] ?? 'none:0,l3:1000,l3:3000,conflated:3000,conflated:10000').split(',').map((s) => {
  const [kind, count] = s.split(':') as [string, string];
  return { kind: kind as 'none' | 'l3' | 'conflated', count: Number(count) };
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---- child: the server -------------------------------------------------------------------------------
async function serve(): Promise<void> {
  const { startServer } = await import('../src/server/app.ts');
  const { loadConfig } = await import('../src/server/config.ts');
  const { createLogger } = await import('../src/server/logger.ts');
  const config = loadConfig({
    ...process.env,
    BIND_ADDR: '127.0.0.1:0',
    ADMIN_API_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    PER_USER_REQUESTS_PER_SECOND: '1000000',
    WS_MAX_CONNECTIONS: '100000',
    WS_MAX_ANONYMOUS_PER_ADDRESS: '100000',
    WS_IDLE_TIMEOUT_MS: '3600000',
  });
  const server = await startServer(config, createLogger(config.logLevel));
  process.stdout.write(`PORT ${server.port}\n`);
}

// ---- child: a population of watchers -----------------------------------------------------------------
async function watch(url: string, kind: 'l3' | 'conflated', count: number): Promise<void> {
  let frames = 0;
  let resyncs = 0;
  const sockets: WebSocket[] = [];
  const open = async (): Promise<void> => {
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data: Buffer) => {
      frames++;
      if (data.indexOf('"resync_required"') >= 0) resyncs++;
    });
    if (kind === 'l3') ws.send(JSON.stringify({ op: 'subscribe', channel: 'l3', market: MARKET }));
    else {
      ws.send(JSON.stringify({ op: 'subscribe', channel: 'l2', market: MARKET }));
      ws.send(JSON.stringify({ op: 'subscribe', channel: 'ticker', market: MARKET }));
    }
    sockets.push(ws);
  };
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, open));
  await sleep(500);
  process.send?.({ ready: sockets.length });
  process.on('message', (m: string) => {
    if (m === 'mark') process.send?.({ frames, resyncs });
    else if (m === 'stop') {
      for (const ws of sockets) ws.terminate();
      process.exit(0);
    }
  });
}

// ---- child: the order loops ---------------------------------------------------------------------------
async function orders(url: string, keys: readonly string[], seconds: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: keys.length });
  const { hostname, port } = new URL(url);
  let done = 0;
  let failed = 0;
  let running = true;
  const post = (key: string, body: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request({ agent, hostname, port, method: 'POST', path: '/api/v1/orders', headers: { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  const loops = keys.map(async (key) => {
    let n = 0;
    while (running) {
      // Alternating sides at one price: each sell meets the trader's own resting buy, so the book and
      // the position stay small while every order changes the book (a delta, a level, a trade).
      const status = await post(key, JSON.stringify({ market: MARKET, side: n++ % 2 === 0 ? 'BUY' : 'SELL', price: 100, quantity: 1 }));
      if (status === 201 || status === 200) done++;
      else failed++;
    }
  });
  await sleep(seconds * 1000);
  running = false;
  await Promise.all(loops);
  process.send?.({ done, failed, seconds: (performance.now() - started) / 1000 });
  agent.destroy();
  process.exit(0);
}

// ---- main ----------------------------------------------------------------------------------------------
function child(args: string[]): ChildProcess {
  return spawn(process.execPath, [new URL(import.meta.url).pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
}

function nextMessage<T>(proc: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve(m as T));
    proc.once('exit', (code) => reject(new Error(`child exited (${code})`)));
  });
}

async function admin(url: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function main(): Promise<void> {
  const server = child(['server']);
  const port = await new Promise<number>((resolve) => {
    let out = '';
    server.stdout?.on('data', (d: Buffer) => {
      out += String(d);
      const m = /PORT (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  await admin(url, '/api/v1/admin/markets', { market_id: MARKET, base_asset: 'BENCH', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true });
  const keys: string[] = [];
  for (let i = 0; i < LOOPS; i++) keys.push(((await admin(url, '/api/v1/admin/users', { username: `md-bench-${i}` })) as { profile: { api_key: string } }).profile.api_key);
  console.log(`node ${process.version}, ${SECONDS} s per measurement, ${LOOPS} HTTP order loops on one market, MARKET_DATA_INTERVAL_MS ${process.env['MARKET_DATA_INTERVAL_MS'] ?? 100}`);
  let reference: number | null = null;
  for (const scenario of SCENARIOS) {
    let watchers: ChildProcess | null = null;
    if (scenario.kind !== 'none' && scenario.count > 0) {
      watchers = child(['watch', `ws://127.0.0.1:${port}/ws`, scenario.kind, String(scenario.count)]);
      const { ready } = await nextMessage<{ ready: number }>(watchers);
      if (ready !== scenario.count) throw new Error(`only ${ready} of ${scenario.count} watchers connected`);
    }
    await sleep(1000);
    const before = watchers === null ? { frames: 0, resyncs: 0 } : await mark(watchers);
    const load = loadavg()[0] as number;
    const loops = child(['orders', url, JSON.stringify(keys), String(SECONDS)]);
    const result = await nextMessage<{ done: number; failed: number; seconds: number }>(loops);
    const after = watchers === null ? { frames: 0, resyncs: 0 } : await mark(watchers);
    const rate = result.done / result.seconds;
    reference ??= rate;
    const label = scenario.kind === 'none' ? 'no watchers' : scenario.kind === 'l3' ? `${scenario.count} l3 subscribers` : `${scenario.count} spectators on l2+ticker`;
    console.log(
      `${label.padEnd(32)} ${rate.toFixed(0).padStart(6)} orders/s (${result.failed} refused), ${(100 * rate / reference).toFixed(0).padStart(3)}% of unwatched; ` +
        `${((after.frames - before.frames) / result.seconds).toFixed(0)} frames/s delivered, ${after.resyncs - before.resyncs} resyncs; load avg ${load.toFixed(2)}`,
    );
    if (watchers !== null) {
      watchers.send('stop');
      await new Promise((r) => watchers.once('exit', r));
    }
    await sleep(1000);
  }
  server.kill('SIGTERM');
}

async function mark(watchers: ChildProcess): Promise<{ frames: number; resyncs: number }> {
  const reply = nextMessage<{ frames: number; resyncs: number }>(watchers);
  watchers.send('mark');
  return reply;
}

const [, , role, ...args] = process.argv;
if (role === 'server') await serve();
else if (role === 'watch') await watch(args[0] as string, args[1] as 'l3' | 'conflated', Number(args[2]));
else if (role === 'orders') await orders(args[0] as string, JSON.parse(args[1] as string) as string[], Number(args[2]));
else await main();
