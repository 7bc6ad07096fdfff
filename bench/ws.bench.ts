// WebSocket benchmark (`npm run bench:ws`). Prints figures, never passes or fails.
//
// 1. Order entry: acked submit_order/s over 10 and 100 connections against the real server, and the same
//    client pattern against a plain `ws` echo server measured in the same run (the reference). Beside
//    the rates, the CPU each costs per order in every thread and process (server, fan-out child,
//    clients; the echo's server and clients) and their ratio: what the two cores allow at that cost.
// 2. Fairness: 50 well-behaved traders at 10 orders/s each, their ack latency (p50/p99) without and
//    with one trader flooding over 4 pipelined connections; the flooder's accepted rate against its
//    budget (BENCH_FAIRNESS=0 skips it).
// 3. Fan-out: 1,000 l3 subscribers and a paced order flow; deltas delivered/s and the time from the
//    moment a command is sent to the moment each subscriber has its delta (p50/p99/max).
//
// Everything runs once per WS_FANOUT mode (BENCH_FANOUT_MODES, default `process,inline`), each on a
// server of its own, with the echo reference measured again in that run. A fan-out scenario with a
// fourth field `raw` (`1000:10:2000:raw`) reads the deltas with bench/raw-ws-client.ts instead of
// `ws`, so the subscribers cost less than the server they measure.
//
// Beside the fan-out, its floor on this machine (BENCH_FANOUT_FLOOR, default `1000:10:2000` with both
// clients; `0` skips it): the same subscribers and the same paced rate against a writer that is nothing
// but sockets (a worker thread doing the upgrade by hand, then one socket.write of a pre-framed delta
// of the exchange's size per subscriber per command): no exchange, no JSON, no queue. What it costs and
// how late it delivers is what the kernel and the subscribers cost; the exchange's fan-out cannot beat it.
// A fan-out line of the same scenario prints its p99 and its writer's CPU per delta against the floor's.
//
// BENCH_QUICK=1 (bench/quick.ts): every part in both modes, 0.5 s per measurement,
// fan-out and floor with 100 subscribers over 10 markets at 500 deltas/s (`ws` and raw clients), the
// flood against the default abuse settings for 3 s (long enough to be closed): a check that it runs.
//
// The server (and the echo server) run on the main thread; load generators run in worker threads so
// the server has a core of its own on the 2-core machine (with WS_FANOUT=process the sockets are the
// server's child process's). Latency uses performance.timeOrigin +
// performance.now(), comparable across threads, and a SharedArrayBuffer of send times.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import { loadavg } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { WebSocket, WebSocketServer } from 'ws';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { hashApiKey, newApiKey } from '../src/server/clock.ts';
import { loadConfig } from '../src/server/config.ts';
import { createLogger } from '../src/server/logger.ts';
import { openRawWs } from './raw-ws-client.ts';
import { textFrameHeader } from '../src/server/ws/wire-frame.ts';
import { quick, setting, textSetting } from './quick.ts';

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface EntryJob {
  readonly role: 'entry';
  readonly url: string;
  readonly keys: readonly string[];
  readonly market: string;
  readonly window: number;
  readonly seconds: number;
  readonly echo: boolean;
}

interface SubscriberJob {
  readonly role: 'subscribers';
  /** Read with the raw client (bench/raw-ws-client.ts) instead of `ws`. */
  readonly raw: boolean;
  readonly url: string;
  readonly markets: readonly string[];
  readonly count: number;
  readonly sendTimes: SharedArrayBuffer;
  readonly perMarket: number;
  readonly bases: readonly number[];
}

interface DriverJob {
  readonly role: 'driver';
  readonly url: string;
  readonly key: string;
  readonly markets: readonly string[];
  readonly rate: number;
  readonly seconds: number;
  readonly sendTimes: SharedArrayBuffer;
  readonly perMarket: number;
}

interface PacedJob {
  readonly role: 'paced';
  readonly url: string;
  readonly keys: readonly string[];
  readonly market: string;
  readonly perSecond: number;
  readonly seconds: number;
}

interface FloodJob {
  readonly role: 'flood';
  readonly url: string;
  readonly key: string;
  readonly market: string;
  readonly connections: number;
  readonly window: number;
  readonly seconds: number;
}

interface FloorJob {
  readonly role: 'floor';
  readonly markets: readonly string[];
  readonly subscribers: number;
  readonly rate: number;
  readonly seconds: number;
  readonly sendTimes: SharedArrayBuffer;
  readonly perMarket: number;
  /** Bytes of each delta's payload (an l3 delta of the exchange, as measured). */
  readonly payload: number;
}

type Job = EntryJob | SubscriberJob | DriverJob | PacedJob | FloodJob | FloorJob;

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { skipUTF8Validation: true, perMessageDeflate: false });
  await once(ws, 'open');
  return ws;
}

// ---- workers -----------------------------------------------------------------------------------

async function authenticated(url: string, key: string): Promise<WebSocket> {
  const ws = await open(url);
  await authenticate(ws, key);
  return ws;
}

/**
 * Authenticates and resolves on the `authenticated` frame. It waits for that frame by type rather than
 * for "the second message": the heartbeat the server sends on accept can arrive in the same read as
 * the upgrade response and be emitted before any listener is attached, and a bench that then waited
 * for the next periodic heartbeat (up to 15 s) counted that wait as time the exchange was measured.
 */
function authenticate(ws: WebSocket, key: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onMessage = (data: Buffer): void => {
      const f = JSON.parse(String(data)) as { type?: string; code?: string };
      if (f.type === 'error') reject(new Error(`bench: authenticate refused: ${f.code ?? '?'}`));
      if (f.type !== 'authenticated') return;
      ws.off('message', onMessage);
      resolve();
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ op: 'authenticate', api_key: key }));
  });
}

/** Well-behaved traders: one connection each, `perSecond` orders a second each, evenly spaced; ack latency. */
async function pacedWorker(job: PacedJob): Promise<{ latencies: Float64Array; acked: number; rejects: number }> {
  const sockets = await Promise.all(job.keys.map((k) => authenticated(job.url, k)));
  const latencies: number[] = [];
  let rejects = 0;
  const timers: NodeJS.Timeout[] = [];
  sockets.forEach((ws, i) => {
    const sent = new Map<string, number>();
    let n = 0;
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { type?: string; request_id?: string };
      if (f.type !== 'ack' && f.type !== 'reject') return;
      const t = sent.get(f.request_id ?? '');
      if (t === undefined) return;
      sent.delete(f.request_id ?? '');
      if (f.type === 'reject') rejects++;
      else latencies.push(now() - t);
    });
    const send = (): void => {
      n++;
      const id = `p${n}`;
      sent.set(id, now());
      ws.send(JSON.stringify({ op: 'submit_order', request_id: id, market: job.market, side: n % 2 === 0 ? 'SELL' : 'BUY', price: 100, quantity: 1 }));
    };
    // Spread the traders' sends over the period so they do not all arrive in one burst.
    const period = 1000 / job.perSecond;
    timers.push(
      setTimeout(() => {
        send();
        timers.push(setInterval(send, period));
      }, (i * period) / sockets.length),
    );
  });
  await sleep(job.seconds * 1000);
  for (const t of timers) clearTimeout(t);
  await sleep(200); // the last acks
  for (const ws of sockets) ws.terminate();
  return { latencies: Float64Array.from(latencies).sort(), acked: latencies.length, rejects };
}

/** One trader over several connections, each keeping `window` orders in flight, as fast as the server answers. */
async function floodWorker(job: FloodJob): Promise<{ acked: number; rejects: number; seconds: number; closedAfter: number[] }> {
  const sockets = await Promise.all(Array.from({ length: job.connections }, () => authenticated(job.url, job.key)));
  let acked = 0;
  let rejects = 0;
  let running = true;
  const started = now();
  const closedAfter: number[] = [];
  for (const ws of sockets) {
    let n = 0;
    const send = (): void => {
      n++;
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ op: 'submit_order', request_id: `f${n}`, market: job.market, side: n % 2 === 0 ? 'SELL' : 'BUY', price: 100, quantity: 1 }));
    };
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { type?: string };
      if (f.type !== 'ack' && f.type !== 'reject') return;
      if (f.type === 'reject') rejects++;
      else acked++;
      if (running) send();
    });
    ws.on('close', (code) => closedAfter.push(code === 1008 ? (now() - started) / 1000 : -code));
    for (let w = 0; w < job.window; w++) send();
  }
  await sleep(job.seconds * 1000);
  running = false;
  const seconds = (now() - started) / 1000;
  for (const ws of sockets) ws.terminate();
  return { acked, rejects, seconds, closedAfter };
}

/** Each connection keeps `window` submit_order frames in flight and counts the replies to them. */
async function entryWorker(job: EntryJob): Promise<{ acked: number; seconds: number; rejects: number; cpuMicros: number }> {
  const sockets = await Promise.all(job.keys.map(() => open(job.url)));
  // Every connection is authenticated before the clock starts: the measured window is order entry only.
  if (!job.echo) await Promise.all(sockets.map((ws, i) => authenticate(ws, job.keys[i] as string)));
  let acked = 0;
  let rejects = 0;
  let running = true;
  const started = now();
  const cpu = process.threadCpuUsage();
  for (const ws of sockets) {
    let n = 0;
    const send = (): void => {
      n++;
      // Alternating sides at one price: each sell meets the trader's own resting buy, so positions stay flat.
      ws.send(JSON.stringify({ op: 'submit_order', request_id: `r${n}`, market: job.market, side: n % 2 === 0 ? 'SELL' : 'BUY', price: 100, quantity: 1 }));
    };
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { type?: string; op?: string };
      if (job.echo ? f.op !== 'submit_order' : f.type !== 'ack' && f.type !== 'reject') return;
      if (f.type === 'reject') rejects++;
      acked++;
      if (running) send();
    });
    for (let w = 0; w < job.window; w++) send();
  }
  await sleep(job.seconds * 1000);
  running = false;
  const seconds = (now() - started) / 1000;
  const used = process.threadCpuUsage(cpu);
  const result = { acked, seconds, rejects, cpuMicros: used.user + used.system };
  for (const ws of sockets) ws.terminate();
  return result;
}

async function subscriberWorker(job: SubscriberJob): Promise<{ delivered: number; resyncs: number; gaps: number; latencies: Float64Array }> {
  const sendTimes = new Float64Array(job.sendTimes);
  const latencies = new Float64Array(8_000_000);
  let samples = 0;
  let delivered = 0;
  let resyncs = 0;
  let gaps = 0;
  const SEQ = Buffer.from('"sequence":');
  const closers: (() => void)[] = [];
  for (let i = 0; i < job.count; i++) {
    const m = i % job.markets.length;
    let last = -1;
    // Cheap parse: deltas start {"type":"delta",...; read only the sequence.
    const onText = (data: Buffer, from: number, end: number): void => {
      if (data[from + 9] === 0x64 /* d */) {
        const at = data.indexOf(SEQ, from) + SEQ.length;
        let seq = 0;
        for (let j = at; data[j] !== 0x2c; j++) seq = seq * 10 + ((data[j] as number) - 48);
        if (last >= 0 && seq !== last + 1) gaps++;
        last = seq;
        delivered++;
        const k = seq - (job.bases[m] as number) - 1;
        const sent = k >= 0 && k < job.perMarket ? (sendTimes[m * job.perMarket + k] as number) : 0;
        if (sent > 0 && samples < latencies.length) latencies[samples++] = now() - sent;
        return;
      }
      const f = JSON.parse(data.toString('utf8', from, end)) as { type: string; sequence?: number };
      if (f.type === 'snapshot') last = f.sequence ?? 0;
      else if (f.type === 'resync_required') resyncs++;
    };
    const subscribe = JSON.stringify({ op: 'subscribe', channel: 'l3', market: job.markets[m] });
    if (job.raw) {
      const client = await openRawWs(job.url, onText);
      client.send(subscribe);
      closers.push(() => client.close());
      continue;
    }
    const ws = await open(job.url);
    ws.on('message', (data: Buffer) => onText(data, 0, data.length));
    ws.send(subscribe);
    closers.push(() => ws.terminate());
  }
  parentPort?.postMessage({ ready: true });
  await once(parentPort as NonNullable<typeof parentPort>, 'message');
  await sleep(500); // the tail of deliveries
  for (const close of closers) close();
  return { delivered, resyncs, gaps, latencies: latencies.slice(0, samples) };
}

/**
 * Sends `rate` items a second for `seconds`, round robin over the markets, recording when each market's
 * k-th left (the subscribers' latency is measured from it): `prepare(m, k)` builds market m's k-th,
 * before its time is taken, and `send(m, k)` sends it.
 */
async function paced(
  job: { readonly markets: readonly string[]; readonly rate: number; readonly seconds: number; readonly perMarket: number },
  sendTimes: Float64Array,
  send: (m: number, k: number) => void,
  prepare?: (m: number, k: number) => void,
): Promise<{ sent: number; seconds: number }> {
  const counts = job.markets.map(() => 0);
  let sent = 0;
  const started = now();
  const total = job.rate * job.seconds;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((now() - started) / 1000) * job.rate));
    for (; sent < due; sent++) {
      const m = sent % job.markets.length;
      const k = counts[m] as number;
      counts[m] = k + 1;
      prepare?.(m, k);
      if (k < job.perMarket) sendTimes[m * job.perMarket + k] = now();
      send(m, k);
    }
    await sleep(1);
  }
  return { sent, seconds: (now() - started) / 1000 };
}

/** Sends `rate` commands/s, round-robin over markets, each one changing its book (rest, then cross). */
async function driverWorker(job: DriverJob): Promise<{ sent: number; acked: number; seconds: number }> {
  const sendTimes = new Float64Array(job.sendTimes);
  const ws = await open(job.url);
  ws.send(JSON.stringify({ op: 'authenticate', api_key: job.key }));
  let acked = 0;
  ws.on('message', (data: Buffer) => {
    if (data.indexOf('"type":"ack"') >= 0) acked++;
  });
  await sleep(100);
  const { sent, seconds } = await paced(job, sendTimes, (m, k) => {
    ws.send(`{"op":"submit_order","market":"${job.markets[m] as string}","side":"${k % 2 === 0 ? 'BUY' : 'SELL'}","price":100,"quantity":1}`);
  });
  await sleep(300);
  ws.terminate();
  return { sent, acked, seconds };
}

/**
 * The floor writer: accepts the subscribers' upgrades by hand, reads each one's subscribe frame for its
 * market, then sends `rate` deltas/s round robin over the markets, each one socket.write per subscriber
 * of its market, recording the send time as the driver does.
 */
async function floorWorker(job: FloorJob): Promise<{ sent: number; seconds: number; cpuMicros: number }> {
  const sendTimes = new Float64Array(job.sendTimes);
  const byMarket = job.markets.map((): Socket[] => []);
  let subscribed = 0;
  const server = createServer();
  server.on('upgrade', (req, socket: Socket) => {
    const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.setNoDelay(true);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    let pending: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      pending = Buffer.concat([pending, chunk]);
      // One small masked client frame: header, 4-byte mask, payload.
      const length = (pending[1] as number) & 127;
      if (pending.length < 6 + length) return;
      const text = Buffer.from(pending.subarray(6, 6 + length).map((b, i) => b ^ (pending[2 + (i % 4)] as number))).toString('utf8');
      const market = job.markets.indexOf((JSON.parse(text) as { market: string }).market);
      (byMarket[market] as Socket[]).push(socket);
      subscribed++;
      socket.off('data', onData);
      socket.on('data', () => {});
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  parentPort?.postMessage({ port: (server.address() as AddressInfo).port });
  await once(parentPort as NonNullable<typeof parentPort>, 'message');
  while (subscribed < job.subscribers) await sleep(10);
  const cpu = process.threadCpuUsage();
  // The frame is built before the send time is taken, as the exchange's delta exists before it leaves.
  let frame = Buffer.alloc(0);
  const { sent, seconds } = await paced(job, sendTimes, (m) => {
    for (const socket of byMarket[m] as Socket[]) socket.write(frame);
  }, (m, k) => {
    const head = `{"type":"delta","channel":"l3","market":"${job.markets[m] as string}","sequence":${k + 1},"pad":"`;
    const payload = Buffer.from(`${head}${'x'.repeat(Math.max(0, job.payload - head.length - 2))}"}`);
    frame = Buffer.concat([textFrameHeader(payload.length), payload]);
  });
  const used = process.threadCpuUsage(cpu);
  await sleep(300);
  for (const sockets of byMarket) for (const socket of sockets) socket.destroy();
  server.close();
  return { sent, seconds, cpuMicros: used.user + used.system };
}

/** The floor's p99 and writer CPU per delta by scenario (`subs:markets:rate` plus `:raw`), the reference of the fan-out lines. */
const floorOf = new Map<string, { p99: number; cpuPerDelta: number }>();

/** The fan-out floor (see the head of this file) for one scenario, with `ws` or raw subscribers. */
async function fanOutFloor(label: string, subscribers: number, marketCount: number, rate: number, seconds: number, raw: boolean, payload: number): Promise<void> {
  const markets = Array.from({ length: marketCount }, (_, i) => `Z${label}${i}-USD`);
  const perMarket = Math.ceil((rate * seconds) / marketCount) + 10;
  const sendTimes = new SharedArrayBuffer(8 * perMarket * marketCount);
  let go: (() => void) | null = null;
  let port = 0;
  const writer = runWorker<{ sent: number; seconds: number; cpuMicros: number }>({ role: 'floor', markets, subscribers, rate, seconds, sendTimes, perMarket, payload }, (worker, msg) => {
    port = (msg as { port: number }).port;
    go = () => worker.postMessage('go');
  });
  while (go === null) await sleep(20);
  let release: (() => void) | null = null;
  const subs = runWorker<{ delivered: number; resyncs: number; gaps: number; latencies: Float64Array }>(
    { role: 'subscribers', url: `ws://127.0.0.1:${port}/ws`, markets, count: subscribers, sendTimes, perMarket, bases: markets.map(() => 0), raw },
    (worker) => {
      release = () => worker.postMessage('stop');
    },
  );
  while (release === null) await sleep(20);
  (go as () => void)();
  const w = await writer;
  (release as () => void)();
  const r = await subs;
  const lat = r.latencies.sort();
  floorOf.set(`${subscribers}:${marketCount}:${rate}${raw ? ':raw' : ''}`, { p99: quantile(lat, 0.99), cpuPerDelta: w.cpuMicros / Math.max(1, r.delivered) });
  console.log(
    `floor: plain sockets, ${subscribers} subscribers${raw ? ' (raw client)' : ''} over ${marketCount} market(s) at ${rate} deltas/s, ${payload} B each: ` +
      `delivered ${(r.delivered / w.seconds).toFixed(0)}/s (expected ${((w.sent * subscribers) / marketCount / w.seconds).toFixed(0)}); send->delivery p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms, max ${quantile(lat, 1).toFixed(2)} ms; gaps ${r.gaps}; ` +
      `writer CPU ${(w.cpuMicros / Math.max(1, r.delivered)).toFixed(2)} µs per delta delivered, ${((100 * w.cpuMicros) / 1e6 / w.seconds).toFixed(0)}% of a core; load avg ${(loadavg()[0] as number).toFixed(2)}`,
  );
}

// ---- main --------------------------------------------------------------------------------------

function runWorker<T>(job: Job, onMessage?: (worker: Worker, msg: unknown) => void): Promise<T> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  return new Promise<T>((resolve, reject) => {
    worker.on('message', (msg: { result?: T }) => {
      if (msg.result !== undefined) resolve(msg.result);
      else onMessage?.(worker, msg);
    });
    worker.on('error', reject);
  });
}

async function provision(server: RunningServer, n: number, markets: readonly string[]): Promise<string[]> {
  const service = server.context.service;
  for (const market of markets) {
    const [base, quote] = market.split('-') as [string, string];
    await service.execute((s) => ({ type: 'UpsertMarket', time: s.time, market: { market_id: market, base_asset: base, quote_asset: quote, tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true } }));
  }
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const key = newApiKey();
    await service.execute((s) => ({ type: 'ProvisionTrader', time: s.time, username: `bench-${markets[0]}-${i}`, trader_id: s.uuid(), api_key_hash: hashApiKey(key) }));
    keys.push(key);
  }
  return keys;
}

async function echoServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  wss.on('connection', (ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  return {
    url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** User + system CPU ticks of a process (utime and stime of /proc/<pid>/stat); 0 when it cannot be read. */
function processTicks(pid: number | null): number {
  if (pid === null) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);
}

async function fanOut(server: RunningServer, label: string, subscribers: number, marketCount: number, rate: number, seconds: number, raw: boolean): Promise<void> {
  const markets = Array.from({ length: marketCount }, (_, i) => `F${label}${i}-USD`);
  const [key] = await provision(server, 1, markets);
  const perMarket = Math.ceil((rate * seconds) / marketCount) + 10;
  const sendTimes = new SharedArrayBuffer(8 * perMarket * marketCount);
  const bases = markets.map((m) => server.context.service.state.marketData.sequence(m));
  let release: (() => void) | null = null;
  const subs = runWorker<{ delivered: number; resyncs: number; gaps: number; latencies: Float64Array }>(
    { role: 'subscribers', url: server.wsUrl, markets, count: subscribers, sendTimes, perMarket, bases, raw },
    (worker) => {
      release = () => worker.postMessage('stop');
    },
  );
  while (release === null) await sleep(20);
  // CPU of the process that writes the deltas (the fan-out child, or the matching thread inline) per
  // delta delivered: with one delta per write, mostly the system call.
  const child = server.fanout?.pid ?? null;
  const thread = process.threadCpuUsage();
  const childTicks = processTicks(child);
  const driven = await runWorker<{ sent: number; acked: number; seconds: number }>({ role: 'driver', url: server.wsUrl, key: key as string, markets, rate, seconds, sendTimes, perMarket });
  const used = process.threadCpuUsage(thread);
  const writerMicros = child === null ? used.user + used.system : ((processTicks(child) - childTicks) * 1e6) / TICKS_PER_SECOND;
  (release as () => void)();
  const r = await subs;
  const lat = r.latencies.sort();
  const floor = floorOf.get(`${subscribers}:${marketCount}:${rate}${raw ? ':raw' : ''}`);
  const cpuPerDelta = writerMicros / Math.max(1, r.delivered);
  console.log(
    `fan-out ${subscribers} subscribers${raw ? ' (raw client)' : ''} over ${marketCount} market(s) at ${rate} cmd/s: sent ${(driven.sent / driven.seconds).toFixed(0)} cmd/s, acked ${driven.acked}/${driven.sent}; ` +
      `delivered ${(r.delivered / driven.seconds).toFixed(0)} deltas/s (expected ${((driven.sent * subscribers) / marketCount / driven.seconds).toFixed(0)}); ` +
      `command->delivery p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms, max ${quantile(lat, 1).toFixed(2)} ms; resyncs ${r.resyncs}, gaps ${r.gaps}; ` +
      `${child === null ? 'matching thread' : 'fan-out child'} CPU ${cpuPerDelta.toFixed(2)} µs per delta delivered, ${((100 * writerMicros) / 1e6 / driven.seconds).toFixed(0)}% of a core; ` +
      `${floor === undefined ? '' : `against the floor: p99 ${(quantile(lat, 0.99) / floor.p99).toFixed(1)}x, CPU per delta ${(cpuPerDelta / floor.cpuPerDelta).toFixed(2)}x; `}load avg ${(loadavg()[0] as number).toFixed(2)}`,
  );
}

/**
 * Fairness: 50 well-behaved traders at 10 orders/s each, their ack latency alone and while one trader
 * floods over 4 pipelined connections, on a server with the default budget (100/s per trader). The
 * abuse close is put off (WS_ABUSE_SECONDS 3600) so the flood lasts the whole run, held only by the
 * budget and by the pause after WS_ABUSE_MULTIPLE x budget refusals a second; a last run with every
 * default shows when the flooder's connections are closed (1008).
 */
async function fairness(seconds: number, mode: string): Promise<void> {
  const env = { BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: 'bench-admin-token', LOG_LEVEL: 'silent', WS_FANOUT: mode };
  const server = await startServer(loadConfig({ ...env, WS_ABUSE_SECONDS: '3600' }), createLogger('silent'));
  const rate = server.context.config.limits.per_user_requests_per_second;
  const market = 'FAIR-USD';
  const keys = await provision(server, 50, [market]);
  const [flooderKey] = await provision(server, 1, ['FLOOD-USD']);
  const window = Number(process.env['BENCH_FLOOD_WINDOW'] ?? 64);
  const paced = (): Promise<{ latencies: Float64Array; acked: number; rejects: number }> => runWorker({ role: 'paced', url: server.wsUrl, keys, market, perSecond: 10, seconds });
  const alone = await paced();
  const floodJob: FloodJob = { role: 'flood', url: server.wsUrl, key: flooderKey as string, market, connections: 4, window, seconds: seconds + 1 };
  const flood = runWorker<{ acked: number; rejects: number; seconds: number; closedAfter: number[] }>(floodJob);
  await sleep(500);
  const flooded = await paced();
  const f = await flood;
  await server.close();
  const line = (label: string, r: { latencies: Float64Array; acked: number; rejects: number }): string =>
    `${label}: ${r.acked} acks (${r.rejects} rejects), p50 ${quantile(r.latencies, 0.5).toFixed(2)} ms, p99 ${quantile(r.latencies, 0.99).toFixed(2)} ms`;
  console.log(`fairness, 50 traders x 10 orders/s, ${seconds} s each, budget ${rate}/s per trader`);
  console.log(`  ${line('without the flooder', alone)}`);
  console.log(`  ${line('with the flooder   ', flooded)}`);
  console.log(
    `  p99 ratio ${(quantile(flooded.latencies, 0.99) / quantile(alone.latencies, 0.99)).toFixed(2)}x (goal <= 1.5x), p50 ratio ${(quantile(flooded.latencies, 0.5) / quantile(alone.latencies, 0.5)).toFixed(2)}x; ` +
      `flooder (4 connections x ${window} in flight): ${(f.acked / f.seconds).toFixed(1)} accepted/s (budget ${rate}), ${(f.rejects / f.seconds).toFixed(0)} refused/s`,
  );
  // With every default, the flood is closed after WS_ABUSE_SECONDS (about 2.1 s after it starts).
  const strict = await startServer(loadConfig(env), createLogger('silent'));
  const [strictKey] = await provision(strict, 1, ['STRICT-USD']);
  const s = await runWorker<{ acked: number; rejects: number; seconds: number; closedAfter: number[] }>({ ...floodJob, url: strict.wsUrl, key: strictKey as string, market: 'STRICT-USD', seconds: quick(6, 3) });
  await strict.close();
  console.log(`  with the default WS_ABUSE_* settings the flooder's connections were closed (1008) after ${s.closedAfter.map((t) => (t < 0 ? `code ${-t}` : `${t.toFixed(2)} s`)).join(', ')}`);
}

async function main(): Promise<void> {
  const seconds = setting('BENCH_SECONDS', 4, 0.5);
  const floors = textSetting('BENCH_FANOUT_FLOOR', '1000:10:2000,1000:10:2000:raw', '100:10:500,100:10:500:raw');
  if (floors !== '0') {
    for (const [i, s] of floors.split(',').entries()) {
      const [subs, marketCount, rate] = s.split(':').map(Number) as [number, number, number];
      await fanOutFloor(String(i), subs, marketCount, rate, seconds, s.endsWith(':raw'), Number(process.env['BENCH_DELTA_BYTES'] ?? 200));
    }
  }
  for (const mode of (process.env['BENCH_FANOUT_MODES'] ?? 'process,inline').split(',')) await runMode(mode, seconds);
}

async function runMode(mode: string, seconds: number): Promise<void> {
  // Order entry and fan-out measure throughput, not the per-trader budget (the fairness run does):
  // every client here is one process on one address, far past the defaults' fair share.
  const config = loadConfig({
    BIND_ADDR: '127.0.0.1:0',
    ADMIN_API_TOKEN: 'bench-admin-token',
    LOG_LEVEL: 'silent',
    PER_USER_REQUESTS_PER_SECOND: '1000000000',
    WS_MAX_ANONYMOUS_PER_ADDRESS: '100000',
    WS_FANOUT: mode,
  });
  const server = await startServer(config, createLogger('silent'));
  const echo = await echoServer();
  console.log(`node ${process.version}, WS_FANOUT=${mode}, ${seconds} s per measurement, WS_BROADCAST_BUFFER ${config.wsBroadcastBuffer}, load avg ${(loadavg()[0] as number).toFixed(2)}`);

  for (const connections of process.env['BENCH_ENTRY'] === '0' ? [] : [10, 100]) {
    const window = Number(process.env["BENCH_WINDOW_" + connections] ?? (connections === 10 ? 32 : 8));
    const market = `E${connections}-USD`;
    const keys = await provision(server, connections, [market]);
    const echoThread = process.threadCpuUsage();
    const e = await runWorker<{ acked: number; seconds: number; cpuMicros: number }>({ role: 'entry', url: echo.url, keys, market, window, seconds, echo: true });
    const echoUsed = process.threadCpuUsage(echoThread);
    // CPU per acked order, a figure the machine's noise moves less than the rate: the matching thread's
    // own, and the fan-out child's (from /proc) where there is one.
    const child = server.fanout?.pid ?? null;
    const thread = process.threadCpuUsage();
    const childTicks = processTicks(child);
    const x = await runWorker<{ acked: number; seconds: number; rejects: number; cpuMicros: number }>({ role: 'entry', url: server.wsUrl, keys, market, window, seconds, echo: false });
    const used = process.threadCpuUsage(thread);
    const mainMicros = (used.user + used.system) / x.acked;
    const childMicros = child === null ? null : ((processTicks(child) - childTicks) * 1e6) / TICKS_PER_SECOND / x.acked;
    const echoRate = e.acked / e.seconds;
    const rate = x.acked / x.seconds;
    console.log(
      `order entry, ${connections} connections x ${window} in flight: exchange ${rate.toFixed(0)} acked orders/s (${x.rejects} rejects), ` +
        `echo ${echoRate.toFixed(0)} replies/s, ratio ${((100 * rate) / echoRate).toFixed(0)}%; CPU per order: matching thread ${mainMicros.toFixed(1)} µs` +
        `${childMicros === null ? '' : `, fan-out child ${childMicros.toFixed(1)} µs`}, clients ${(x.cpuMicros / x.acked).toFixed(1)} µs; load avg ${(loadavg()[0] as number).toFixed(2)}`,
    );
    // The same accounting for the echo: its server's thread and its clients, per reply. The two totals
    // are what each run costs the machine per order; when both runs keep the cores busy their rates
    // can differ by no more than these totals do, so the ratio by CPU is the rate ratio the machine
    // allows at this cost per order, whatever the scheduling (docs/benchmarks.md, WebSocket).
    const echoServer = (echoUsed.user + echoUsed.system) / e.acked;
    const echoTotal = echoServer + e.cpuMicros / e.acked;
    const total = mainMicros + (childMicros ?? 0) + x.cpuMicros / x.acked;
    console.log(
      `  CPU per order, every thread and process: exchange ${total.toFixed(1)} µs; echo ${echoTotal.toFixed(1)} µs per reply (server ${echoServer.toFixed(1)}, clients ${(e.cpuMicros / e.acked).toFixed(1)}); ` +
        `ratio by CPU ${((100 * echoTotal) / total).toFixed(0)}%`,
    );
  }
  await echo.close();

  if (process.env['BENCH_FAIRNESS'] !== '0') await fairness(setting('BENCH_FAIR_SECONDS', 5, 0.5), mode);

  const fanouts = textSetting('BENCH_FANOUT', '1000:100:2000,1000:10:2000,1000:10:2000:raw,1000:1:200,1000:1:2000', '100:10:500,100:10:500:raw');
  const scenarios = fanouts === '0' ? [] : fanouts.split(',');
  for (const [i, s] of scenarios.entries()) {
    const [subs, marketCount, rate] = s.split(':').map(Number) as [number, number, number];
    await fanOut(server, `${mode[0] as string}${i}`, subs, marketCount, rate, seconds, s.endsWith(':raw'));
  }
  await server.close();
}

if (isMainThread) {
  await main();
} else {
  const job = workerData as Job;
  const result =
    job.role === 'entry'
      ? await entryWorker(job)
      : job.role === 'subscribers'
        ? await subscriberWorker(job)
        : job.role === 'paced'
          ? await pacedWorker(job)
          : job.role === 'flood'
            ? await floodWorker(job)
            : job.role === 'floor'
              ? await floorWorker(job)
              : await driverWorker(job);
  parentPort?.postMessage({ result });
}
