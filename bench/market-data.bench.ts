// `npm run bench:market-data` (also run by `npm run bench:ws`): order entry over HTTP (16 loops, one
// market) while the market is watched by nobody, by 1,000 and 3,000 l3 subscribers, and by 3,000 and
// 10,000 spectators on l2 + ticker. The server, the order loops and each subscriber population run in
// processes of their own. Prints orders/s, frames/s delivered (and deltas/s where a frame carries
// several), resyncs, the ratio to the unwatched rate measured in the same run, and the load average at
// each figure (the machine is shared). Never passes or fails.
//
// The whole list runs once per WS_FANOUT mode (BENCH_FANOUT_MODES, default `process,inline`), each on a
// server of its own. Variants beside today's populations (BENCH_WATCHERS, kind:count):
// - `l3batch`: l3 subscribers with `"batch": true`;
// - `l3raw`, `l3batchraw`, `conflatedraw`: the same subscriptions read by a raw watcher that does the
//   WebSocket handshake itself and counts frames from their headers (no `ws` client, no UTF-8 decoding),
//   so the instrument costs less than the server it measures; it still answers pings.
// BENCH_PIN=1 (Linux, taskset) puts the server's main process and the order loops on CPU 0 and the
// fan-out child and the watchers on CPU 1, so what watching costs the matching thread is seen apart
// from what it costs the machine.
//
// BENCH_QUICK=1 (bench/quick.ts): each kind of population above with 100 watchers, 0.5 s per
// measurement, 0.1-0.2 s for the watchers to settle: a check that it runs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { WebSocket } from 'ws';
import { openRawWs } from './raw-ws-client.ts';
import { quick, setting, textSetting } from './quick.ts';

const SECONDS = setting('BENCH_SECONDS', 6, 0.5);
const LOOPS = 16;
const MARKET = 'BENCH-USD';
const ADMIN_TOKEN = 'bench-admin-token';
type WatcherKind = 'l3' | 'l3batch' | 'conflated' | 'l3raw' | 'l3batchraw' | 'conflatedraw';
const SCENARIOS = textSetting('BENCH_WATCHERS', 'none:0,l3:1000,l3raw:1000,l3batchraw:1000,l3:3000,l3raw:3000,conflated:3000,conflated:10000,conflatedraw:10000', 'none:0,l3:100,l3raw:100,l3batchraw:100,conflated:100,conflatedraw:100').split(',').map((s) => {
  const [kind, count] = s.split(':') as [string, string];
  return { kind: kind as 'none' | WatcherKind, count: Number(count) };
});
const MODES = (process.env['BENCH_FANOUT_MODES'] ?? 'process,inline').split(',');
const PIN = process.env['BENCH_PIN'] === '1';

/** BENCH_PIN: every thread of `pid` on `cpu`. */
function pin(pid: number | undefined, cpu: number): void {
  if (PIN && pid !== undefined) execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** The fan-out child of a server process (none with WS_FANOUT=inline). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    for (const p of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (p !== '') out.push(Number(p));
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---- child: the server -------------------------------------------------------------------------------
async function serve(mode: string): Promise<void> {
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
    WS_FANOUT: mode,
  });
  const server = await startServer(config, createLogger(config.logLevel));
  process.stdout.write(`PORT ${server.port}\n`);
}

// ---- child: a population of watchers -----------------------------------------------------------------
const SUBSCRIBE_L3 = JSON.stringify({ op: 'subscribe', channel: 'l3', market: MARKET });
const SUBSCRIBE_L3_BATCH = JSON.stringify({ op: 'subscribe', channel: 'l3', market: MARKET, batch: true });
const SUBSCRIBES: Record<'l3' | 'l3batch' | 'conflated', readonly string[]> = {
  l3: [SUBSCRIBE_L3],
  l3batch: [SUBSCRIBE_L3_BATCH],
  conflated: [JSON.stringify({ op: 'subscribe', channel: 'l2', market: MARKET }), JSON.stringify({ op: 'subscribe', channel: 'ticker', market: MARKET })],
};
const DELTA = Buffer.from('{"type":"delta"');

/** Deltas inside one frame's text: one for a delta, each of them for a batch. */
function deltasIn(payload: Buffer): number {
  let n = 0;
  for (let at = payload.indexOf(DELTA); at >= 0; at = payload.indexOf(DELTA, at + DELTA.length)) n++;
  return n;
}

async function watch(url: string, kind: WatcherKind, count: number): Promise<void> {
  const counts = { frames: 0, deltas: 0, resyncs: 0 };
  const raw = kind.endsWith('raw');
  const subscribes = SUBSCRIBES[(raw ? kind.slice(0, -3) : kind) as 'l3' | 'l3batch' | 'conflated'];
  const closers: (() => void)[] = [];
  const open = async (): Promise<void> => {
    if (raw) {
      // Server frames are {"type":"<name>",...: the name starts at the tenth byte of the text.
      const client = await openRawWs(url, (buffer, start, end) => {
        counts.frames++;
        const t = buffer[start + 9];
        if (t === 0x72 /* r */ && buffer[start + 11] === 0x73 /* s: resync */) counts.resyncs++;
        else if (t === 0x64 /* d */ && buffer[start + 10] === 0x65 /* e: delta */) counts.deltas++;
        else if (t === 0x62 /* b: batch */) counts.deltas += deltasIn(buffer.subarray(start, end));
      });
      for (const frame of subscribes) client.send(frame);
      closers.push(() => client.close());
      return;
    }
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data: Buffer) => {
      counts.frames++;
      if (data.indexOf('"resync_required"') >= 0) counts.resyncs++;
      else counts.deltas += deltasIn(data);
    });
    for (const frame of subscribes) ws.send(frame);
    closers.push(() => ws.terminate());
  };
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, open));
  await sleep(quick(500, 100));
  process.send?.({ ready: closers.length });
  process.on('message', (m: string) => {
    if (m === 'mark') process.send?.({ ...counts });
    else if (m === 'stop') {
      for (const close of closers) close();
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
  console.log(`node ${process.version}, ${SECONDS} s per measurement, ${LOOPS} HTTP order loops on one market, MARKET_DATA_INTERVAL_MS ${process.env['MARKET_DATA_INTERVAL_MS'] ?? 100}`);
  for (const mode of MODES) await runMode(mode);
}

async function runMode(mode: string): Promise<void> {
  const server = child(['server', mode]);
  const port = await new Promise<number>((resolve) => {
    let out = '';
    server.stdout?.on('data', (d: Buffer) => {
      out += String(d);
      const m = /PORT (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  pin(server.pid, 0);
  for (const fanout of PIN && server.pid !== undefined ? childrenOf(server.pid) : []) pin(fanout, 1);
  await admin(url, '/api/v1/admin/markets', { market_id: MARKET, base_asset: 'BENCH', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true });
  const keys: string[] = [];
  for (let i = 0; i < LOOPS; i++) keys.push(((await admin(url, '/api/v1/admin/users', { username: `md-bench-${i}` })) as { profile: { api_key: string } }).profile.api_key);
  console.log(`WS_FANOUT=${mode}${PIN ? ' (pinned: server and order loops on CPU 0, fan-out child and watchers on CPU 1)' : ''}`);
  let reference: number | null = null;
  const settleMs = quick(1000, 200);
  for (const scenario of SCENARIOS) {
    let watchers: ChildProcess | null = null;
    if (scenario.kind !== 'none' && scenario.count > 0) {
      watchers = child(['watch', `ws://127.0.0.1:${port}/ws`, scenario.kind, String(scenario.count)]);
      pin(watchers.pid, 1);
      const { ready } = await nextMessage<{ ready: number }>(watchers);
      if (ready !== scenario.count) throw new Error(`only ${ready} of ${scenario.count} watchers connected`);
    }
    await sleep(settleMs);
    const none = { frames: 0, deltas: 0, resyncs: 0 };
    const before = watchers === null ? none : await mark(watchers);
    const load = loadavg()[0] as number;
    const loops = child(['orders', url, JSON.stringify(keys), String(SECONDS)]);
    pin(loops.pid, 0);
    const result = await nextMessage<{ done: number; failed: number; seconds: number }>(loops);
    const after = watchers === null ? none : await mark(watchers);
    const rate = result.done / result.seconds;
    reference ??= rate;
    const label = scenario.kind === 'none' ? 'no watchers' : `${scenario.count} ${LABELS[scenario.kind]}`;
    const frames = (after.frames - before.frames) / result.seconds;
    const deltas = (after.deltas - before.deltas) / result.seconds;
    // Deltas/s beside frames/s where a frame carries several (batch); the same figure otherwise.
    const carried = scenario.kind.includes('batch') ? `, ${deltas.toFixed(0)} deltas/s` : '';
    console.log(
      `${label.padEnd(40)} ${rate.toFixed(0).padStart(6)} orders/s (${result.failed} refused), ${(100 * rate / reference).toFixed(0).padStart(3)}% of unwatched; ` +
        `${frames.toFixed(0)} frames/s delivered${carried}, ${after.resyncs - before.resyncs} resyncs; load avg ${load.toFixed(2)}`,
    );
    if (watchers !== null) {
      watchers.send('stop');
      await new Promise((r) => watchers.once('exit', r));
    }
    await sleep(settleMs);
  }
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
}

const LABELS: Record<WatcherKind, string> = {
  l3: 'l3 subscribers',
  l3batch: 'l3 subscribers, batch',
  conflated: 'spectators on l2+ticker',
  l3raw: 'l3 subscribers (raw watcher)',
  l3batchraw: 'l3 subscribers, batch (raw watcher)',
  conflatedraw: 'spectators on l2+ticker (raw watcher)',
};

async function mark(watchers: ChildProcess): Promise<{ frames: number; deltas: number; resyncs: number }> {
  const reply = nextMessage<{ frames: number; deltas: number; resyncs: number }>(watchers);
  watchers.send('mark');
  return reply;
}

const [, , role, ...args] = process.argv;
if (role === 'server') await serve(args[0] ?? 'process');
else if (role === 'watch') await watch(args[0] as string, args[1] as WatcherKind, Number(args[2]));
else if (role === 'orders') await orders(args[0] as string, JSON.parse(args[1] as string) as string[], Number(args[2]));
else await main();
