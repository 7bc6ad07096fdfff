// Client benchmark (`npm run bench:clients`). Prints figures, never passes or fails.
//
// 1. The SDK's L3 book: deltas applied per second (pre-built deltas of one event each: adds, updates,
//    removals over a book of 10,000 orders), beside a reference in the same run: the same events applied
//    to one plain Map (set/delete), the least any book must do.
// 2. Order entry on ONE connection, `window` submit_order in flight: the SDK's ExchangeSocket (pipelined
//    promises) against the raw `ws` client of bench:ws (same frames, same pattern), alternating runs on the
//    same server; the load generators run in a worker thread so the server keeps the main thread.
// BENCH_QUICK=1 (bench/quick.ts): 20,000 deltas over a book of 1,000 orders, entry rounds of 1 s: a check
// that it runs.
import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { ExchangeSocket, L3Book, type BookOrder, type L3Event } from '../clients/typescript/src/index.ts';
import { prng } from '../replay/prng.ts';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { hashApiKey, newApiKey } from '../src/server/clock.ts';
import { loadConfig } from '../src/server/config.ts';
import { createLogger } from '../src/server/logger.ts';
import { quick, setting } from './quick.ts';

interface EntryJob { readonly kind: 'raw' | 'sdk'; readonly url: string; readonly key: string; readonly market: string; readonly window: number; readonly seconds: number }

function bookBench(): void {
  const random = prng(7);
  const N = quick(1_000_000, 20_000);
  const live: BookOrder[] = [];
  const initial: BookOrder[] = [];
  let id = 0;
  const newOrder = (): BookOrder => {
    const side = random() < 0.5 ? 'BUY' : 'SELL';
    return { order_id: `o${id++}`, side, price: side === 'BUY' ? 900 + Math.floor(random() * 100) : 1000 + Math.floor(random() * 100), remaining: 1 + Math.floor(random() * 50), created_at: '2026-01-01T00:00:00.000000Z' };
  };
  for (let i = 0; i < quick(10_000, 1_000); i++) {
    const o = newOrder();
    initial.push(o);
    live.push(o);
  }
  const deltas: { sequence: number; events: L3Event[] }[] = [];
  for (let s = 1; s <= N; s++) {
    const r = random();
    let e: L3Event;
    if (r < 0.4 || live.length < 100) {
      const o = newOrder();
      live.push(o);
      e = { kind: 'order_added', order: o };
    } else {
      const k = Math.floor(random() * live.length);
      const o = live[k] as BookOrder;
      if (r < 0.7 && o.remaining > 1) {
        const u = { ...o, remaining: o.remaining - 1 };
        live[k] = u;
        e = { kind: 'order_updated', order: u };
      } else {
        live[k] = live[live.length - 1] as BookOrder;
        live.pop();
        e = { kind: 'order_removed', order_id: o.order_id, side: o.side, price: o.price };
      }
    }
    deltas.push({ sequence: s, events: [e] });
  }
  const bids = initial.filter((o) => o.side === 'BUY');
  const asks = initial.filter((o) => o.side === 'SELL');
  for (let round = 0; round < 3; round++) {
    const book = new L3Book('B-USD');
    book.reset({ sequence: 0, bids, asks });
    let t = performance.now();
    for (let i = 0; i < N; i++) book.apply(deltas[i] as (typeof deltas)[number]);
    const sdk = N / ((performance.now() - t) / 1000);
    const map = new Map<string, BookOrder>();
    for (const o of initial) map.set(o.order_id, o);
    t = performance.now();
    for (let i = 0; i < N; i++) {
      const e = (deltas[i] as (typeof deltas)[number]).events[0] as L3Event;
      if (e.kind === 'order_removed') map.delete(e.order_id);
      else if (e.kind !== 'trade') map.set(e.order.order_id, e.order);
    }
    const ref = N / ((performance.now() - t) / 1000);
    console.log(`book round ${round + 1}: SDK L3Book ${(sdk / 1e6).toFixed(2)} M deltas/s; plain Map reference ${(ref / 1e6).toFixed(2)} M/s; ratio ${(sdk / ref).toFixed(2)} (book ${book.size} orders, sequence ${book.sequence})`);
  }
}

async function entryWorker(job: EntryJob): Promise<{ acked: number; seconds: number }> {
  let acked = 0;
  let running = true;
  let started = 0;
  if (job.kind === 'sdk') {
    const socket = await new ExchangeSocket({ url: job.url, apiKey: job.key, reconnect: false }).connect();
    let n = 0;
    const loop = async (): Promise<void> => {
      while (running) {
        n++;
        await socket.submitOrder({ market: job.market, side: n % 2 === 0 ? 'SELL' : 'BUY', price: 100, quantity: 1 }).catch(() => undefined);
        acked++;
      }
    };
    started = performance.now();
    const loops = Array.from({ length: job.window }, () => loop());
    await new Promise((r) => setTimeout(r, job.seconds * 1000));
    running = false;
    const seconds = (performance.now() - started) / 1000;
    const result = { acked, seconds };
    await Promise.all(loops);
    await socket.close();
    return result;
  }
  const ws = new WebSocket(job.url, { skipUTF8Validation: true, perMessageDeflate: false });
  await once(ws, 'open');
  ws.send(JSON.stringify({ op: 'authenticate', api_key: job.key }));
  await new Promise<void>((resolve) => ws.on('message', (d) => String(d).includes('"authenticated"') && resolve()));
  let n = 0;
  const send = (): void => {
    n++;
    ws.send(JSON.stringify({ op: 'submit_order', request_id: `r${n}`, market: job.market, side: n % 2 === 0 ? 'SELL' : 'BUY', price: 100, quantity: 1 }));
  };
  ws.on('message', (data) => {
    const f = JSON.parse(String(data)) as { type?: string };
    if (f.type !== 'ack' && f.type !== 'reject') return;
    acked++;
    if (running) send();
  });
  started = performance.now();
  for (let w = 0; w < job.window; w++) send();
  await new Promise((r) => setTimeout(r, job.seconds * 1000));
  running = false;
  const seconds = (performance.now() - started) / 1000;
  ws.terminate();
  return { acked, seconds };
}

function runWorker(job: EntryJob): Promise<{ acked: number; seconds: number }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { acked: number; seconds: number }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

async function provision(server: RunningServer, name: string): Promise<string> {
  const service = server.context.service;
  await service.execute((s) => ({ type: 'UpsertMarket', time: s.time, market: { market_id: `${name}-USD`, base_asset: name, quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true } }));
  const key = newApiKey();
  await service.execute((s) => ({ type: 'ProvisionTrader', time: s.time, username: `bench-${name}`, trader_id: s.uuid(), api_key_hash: hashApiKey(key) }));
  return key;
}

async function main(): Promise<void> {
  bookBench();
  const seconds = setting('BENCH_SECONDS', 4, 1);
  const window = Number(process.env['BENCH_WINDOW'] ?? 32);
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: 'bench-admin-token', LOG_LEVEL: 'silent', PER_USER_REQUESTS_PER_SECOND: '1000000000' });
  const server = await startServer(config, createLogger('silent'));
  const ratios: number[] = [];
  for (let round = 1; round <= 2; round++) {
    const raw = await runWorker({ kind: 'raw', url: server.wsUrl, key: await provision(server, `RAW${round}`), market: `RAW${round}-USD`, window, seconds });
    const sdk = await runWorker({ kind: 'sdk', url: server.wsUrl, key: await provision(server, `SDK${round}`), market: `SDK${round}-USD`, window, seconds });
    const r = raw.acked / raw.seconds;
    const s = sdk.acked / sdk.seconds;
    ratios.push(s / r);
    console.log(`entry round ${round}, one connection x ${window} in flight: raw ws ${r.toFixed(0)} acked orders/s, SDK ${s.toFixed(0)} acked orders/s, SDK/raw ${(s / r).toFixed(2)}`);
  }
  console.log(`SDK/raw over the rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')}`);
  await server.close();
}

if (isMainThread) await main();
else parentPort?.postMessage(await entryWorker(workerData as EntryJob));
