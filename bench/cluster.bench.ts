// Cluster benchmark (`npm run bench:cluster`). Prints figures, never passes or fails.
//
// 1. Commit-to-follower delivery: a leader (durable acks, so it publishes a command's deltas only once
//    its batch committed) and a follower, both child processes on one PostgreSQL log; orders paced at
//    2,000 commands/s over HTTP; one l3 subscriber on each. For every book sequence, the follower's
//    frame arrival minus the leader's (the reference in the same run: the leader's frame leaves at
//    commit) is the delay replication adds: NOTIFY, the read of the new events, the fold, the publish.
//    Also the follower's arrival minus the moment the order's durable ack arrived.
// 2. Fan-out: 300 l3 subscribers on the leader alone, then split over one and two followers, under the
//    same paced flow: frames/s delivered, per node and per core, and the leader's order-entry rate.
// 3. Failover time: leader + standby, a paced order flow, SIGKILL of the leader; time until the first
//    order acknowledged by the new leader. Five rounds, the killed node back as standby each time.
//
// BENCH_QUICK=1 (bench/quick.ts): every part with 500 commands/s for 1 s, 30 subscribers, two failover
// rounds (the killed node comes back and is killed in its turn): a check that it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { quick, setting } from './quick.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN = 'bench-admin-token';
const RATE = setting('CLUSTER_BENCH_RATE', 2000, 500);
const SECONDS = setting('CLUSTER_BENCH_SECONDS', 8, 1);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const now = () => performance.now();

interface Node {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

async function createDatabase(): Promise<string> {
  const name = `exchange_cluster_bench_${process.pid}_${Date.now().toString(36)}`;
  const c = new pg.Client({ connectionString: BASE_URL });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(BASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function dropDatabase(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: BASE_URL });
  await c.connect();
  await c.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
  await c.end();
}

function spawnNode(db: string, role: string, extra: Record<string, string> = {}): Promise<Node> {
  const child = spawn(process.execPath, ['src/server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      STORAGE_BACKEND: 'postgres',
      DATABASE_URL: db,
      ROLE: role,
      BIND_ADDR: '127.0.0.1:0',
      ADMIN_API_TOKEN: ADMIN,
      LOG_LEVEL: 'info',
      POSTGRES_DURABLE_ACKS: 'true',
      PER_USER_REQUESTS_PER_SECOND: '1000000',
      PER_USER_BURST: '1000000',
      STANDBY_LOCK_POLL_MS: '50',
      WS_BROADCAST_BUFFER: '65536',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"exchange listening"/.exec(out);
      if (m !== null) resolve({ url: `http://127.0.0.1:${m[1]}`, child, exited });
      if (out.length > 100_000) out = out.slice(-1000);
    });
    void exited.then((code) => reject(new Error(`${role} exited ${String(code)}: ${err}`)));
  });
}

async function json<T>(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T };
}

async function setup(leader: string, traders: number): Promise<string[]> {
  await json(leader, 'POST', '/api/v1/admin/config/load', { authorization: `Bearer ${ADMIN}` }, {
    trading_enabled: true,
    markets: [{ market_id: 'CB-USD', base_asset: 'CB', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true }],
  });
  const keys: string[] = [];
  for (let i = 0; i < traders; i++) keys.push((await json<{ profile: { api_key: string } }>(leader, 'POST', '/api/v1/admin/users', { authorization: `Bearer ${ADMIN}` }, { username: `cb_${i}_${Date.now()}` })).body.profile.api_key);
  return keys;
}

/**
 * Orders paced at `rate`/s for `seconds` (open loop) over WebSocket order entry (one authenticated
 * connection per trader key, far cheaper for the load generator than one HTTP request per order).
 */
async function pacedOrders(base: string, keys: readonly string[], rate: number, seconds: number): Promise<{ sent: number; acked: number; ms: number }> {
  const conns: WebSocket[] = [];
  let acked = 0;
  let answered = 0;
  const rejects = new Map<string, number>();
  for (const key of keys) {
    const ws = new WebSocket(base.replace('http', 'ws') + '/ws');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const text = String(data);
        if (text.startsWith('{"type":"authenticated"')) resolve();
        else if (text.startsWith('{"type":"ack"')) {
          acked++;
          answered++;
        } else if (text.startsWith('{"type":"reject"')) {
          answered++;
          const code = /"code":"([a-z_]+)"/.exec(text)?.[1] ?? '?';
          rejects.set(code, (rejects.get(code) ?? 0) + 1);
        }
      });
      ws.send(JSON.stringify({ op: 'authenticate', api_key: key }));
    });
    conns.push(ws);
  }
  const started = now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((now() - started) / 1000) * rate));
    while (sent < due) {
      const i = sent++;
      // Each trader alternates sides, so positions stay far inside the limit.
      const side = Math.floor(i / conns.length) % 2 === 0 ? 'BUY' : 'SELL';
      (conns[i % conns.length] as WebSocket).send(JSON.stringify({ op: 'submit_order', request_id: String(i), market: 'CB-USD', side, price: 95 + (i % 11), quantity: 1 }));
    }
    await sleep(1);
  }
  const sendMs = now() - started;
  const deadline = now() + 10_000;
  while (answered < sent && now() < deadline) await sleep(5);
  for (const ws of conns) ws.terminate();
  if (rejects.size > 0 || answered < sent) console.log(`   (refused: ${JSON.stringify(Object.fromEntries(rejects))}; unanswered after 10 s: ${sent - answered})`);
  return { sent, acked, ms: Math.max(sendMs, 1) };
}

interface SubscriberJob {
  readonly urls: readonly string[];
  readonly record: boolean;
}

interface SubscriberResult {
  readonly counts: number[];
  /** [subscriber index, book sequence, arrival time (timeOrigin + now, comparable across threads)] */
  readonly arrivals: [number, number, number][];
}

// Subscribers live in worker threads: the receiving loop must not share the load generator's, or its
// stalls would show up as latency (and its limits as fan-out capacity).
function subscriberThread(job: SubscriberJob): void {
  const counts = job.urls.map(() => 0);
  const arrivals: [number, number, number][] = [];
  let counting = false;
  const sockets: WebSocket[] = [];
  let open = 0;
  job.urls.forEach((url, i) => {
    const ws = new WebSocket(url.replace('http', 'ws') + '/ws');
    ws.on('open', () => {
      ws.send(JSON.stringify({ op: 'subscribe', channel: 'l3', market: 'CB-USD' }));
      if (++open === job.urls.length) parentPort?.postMessage({ type: 'ready' });
    });
    ws.on('message', (data) => {
      if (!counting) return;
      counts[i] = (counts[i] as number) + 1;
      if (!job.record) return;
      const at = performance.timeOrigin + performance.now();
      const text = String(data);
      if (!text.startsWith('{"type":"delta"')) return;
      const m = /"sequence":(\d+)/.exec(text);
      if (m !== null) arrivals.push([i, Number(m[1]), at]);
    });
    sockets.push(ws);
  });
  parentPort?.on('message', (m: string) => {
    if (m === 'start') {
      counts.fill(0);
      counting = true;
    } else if (m === 'stop') {
      counting = false;
      parentPort?.postMessage({ type: 'result', counts, arrivals });
      for (const ws of sockets) ws.terminate();
      parentPort?.close();
    }
  });
}

interface Subscribers {
  start(): void;
  stop(): Promise<SubscriberResult>;
}

async function subscribers(job: SubscriberJob): Promise<Subscribers> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  const messages: { type: string }[] = [];
  const waiters: (() => void)[] = [];
  worker.on('message', (m: { type: string }) => {
    messages.push(m);
    for (const w of waiters.splice(0)) w();
  });
  const next = async (type: string) => {
    for (;;) {
      const i = messages.findIndex((m) => m.type === type);
      if (i >= 0) return messages.splice(i, 1)[0];
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  await next('ready');
  return {
    start: () => worker.postMessage('start'),
    stop: async () => {
      worker.postMessage('stop');
      return (await next('result')) as unknown as SubscriberResult;
    },
  };
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

async function delivery(): Promise<void> {
  const db = await createDatabase();
  const leader = await spawnNode(db, 'leader');
  const follower = await spawnNode(db, 'follower');
  try {
    const keys = await setup(leader.url, 20);
    const subs = await subscribers({ urls: [leader.url, follower.url], record: true });
    await sleep(300);
    subs.start();
    const r = await pacedOrders(leader.url, keys, RATE, SECONDS);
    await sleep(1000);
    const result = await subs.stop();
    const onLeader = new Map<number, number>();
    const onFollower = new Map<number, number>();
    for (const [i, seq, at] of result.arrivals) (i === 0 ? onLeader : onFollower).set(seq, at);
    const replication: number[] = [];
    const steady: number[] = [];
    const firstAt = Math.min(...onLeader.values());
    for (const [seq, at] of onLeader) {
      const f = onFollower.get(seq);
      if (f === undefined) continue;
      replication.push(f - at);
      if (at - firstAt > 1000) steady.push(f - at);
    }
    console.log(`1. commit-to-follower delivery at ${RATE} commands/s paced for ${SECONDS} s (durable acks): ${r.acked} acked of ${r.sent} sent over ${(r.ms / 1000).toFixed(1)} s (${Math.round((r.sent / r.ms) * 1000)} commands/s offered)`);
    console.log(`   deltas seen on both: ${replication.length} (leader ${onLeader.size}, follower ${onFollower.size})`);
    console.log(`   follower frame minus leader frame (leader publishes at commit): p50 ${f1(pct(replication, 50))} ms, p90 ${f1(pct(replication, 90))} ms, p99 ${f1(pct(replication, 99))} ms, max ${f1(Math.max(...replication))} ms`);
    console.log(`   the same after the first second (warm): p50 ${f1(pct(steady, 50))} ms, p90 ${f1(pct(steady, 90))} ms, p99 ${f1(pct(steady, 99))} ms`);
  } finally {
    leader.child.kill('SIGKILL');
    follower.child.kill('SIGKILL');
    await Promise.all([leader.exited, follower.exited]);
    await dropDatabase(db);
  }
}

async function fanOut(): Promise<void> {
  const SUBSCRIBERS = setting('CLUSTER_BENCH_SUBSCRIBERS', 300, 30);
  const seconds = quick(Math.max(4, Math.round(SECONDS / 2)), SECONDS);
  console.log(`2. fan-out: ${SUBSCRIBERS} l3 subscribers, orders paced at ${RATE}/s for ${seconds} s (${os.cpus().length} cores shared by every process)`);
  let reference: number | undefined;
  for (const followers of [0, 1, 2]) {
    const db = await createDatabase();
    const leader = await spawnNode(db, 'leader');
    const others: Node[] = [];
    for (let i = 0; i < followers; i++) others.push(await spawnNode(db, 'follower'));
    try {
      const keys = await setup(leader.url, 20);
      const targets = followers === 0 ? [leader] : others;
      // Two receiving threads, each with half of the subscribers, spread over the target nodes.
      const urls = Array.from({ length: SUBSCRIBERS }, (_, i) => (targets[i % targets.length] as Node).url);
      const halves = [urls.filter((_, i) => i % 2 === 0), urls.filter((_, i) => i % 2 === 1)];
      const threads = await Promise.all(halves.map((h) => subscribers({ urls: h, record: false })));
      await sleep(500);
      for (const t of threads) t.start();
      const started = now();
      const r = await pacedOrders(leader.url, keys, RATE, seconds);
      await sleep(500);
      const secs = (now() - started) / 1000;
      const results = await Promise.all(threads.map((t) => t.stop()));
      const byNode = new Map<string, number>();
      results.forEach((res, h) => res.counts.forEach((c, i) => byNode.set((halves[h] as string[])[i] as string, (byNode.get((halves[h] as string[])[i] as string) ?? 0) + c)));
      const perNode = targets.map((t) => Math.round((byNode.get(t.url) ?? 0) / secs));
      const total = perNode.reduce((x, y) => x + y, 0);
      const nodes = 1 + followers;
      reference ??= total;
      console.log(
        `   leader + ${followers} follower(s), subscribers on ${followers === 0 ? 'the leader' : 'the followers'}: ${total} frames/s delivered (${perNode.join(' + ')} per node; ${(total / reference).toFixed(2)}x the leader alone), ` +
          `${Math.round(total / os.cpus().length)} frames/s per core; leader order entry ${r.acked} of ${r.sent} acked at ${Math.round((r.sent / r.ms) * 1000)}/s offered (${nodes} node processes + the load generator)`,
      );
    } finally {
      for (const n of [leader, ...others]) n.child.kill('SIGKILL');
      await Promise.all([leader, ...others].map((n) => n.exited));
      await dropDatabase(db);
    }
  }
}

async function failover(): Promise<void> {
  const db = await createDatabase();
  let leader = await spawnNode(db, 'leader');
  let standby = await spawnNode(db, 'standby');
  const times: number[] = [];
  const rounds = quick(5, 2);
  try {
    const keys = await setup(leader.url, 10);
    for (let round = 0; round < rounds; round++) {
      let current = leader.url;
      let stop = false;
      let firstAfter = 0;
      let killedAt = Infinity;
      const flow = (async () => {
        for (let i = 0; !stop; i++) {
          try {
            const res = await fetch(current + '/api/v1/orders', {
              method: 'POST',
              headers: { 'x-api-key': keys[i % keys.length] as string, 'content-type': 'application/json' },
              body: JSON.stringify({ market: 'CB-USD', side: i % 2 === 0 ? 'BUY' : 'SELL', price: 95 + (i % 11), quantity: 1 }),
            });
            await res.text();
            if (res.status === 201 && now() > killedAt && current === standby.url) {
              firstAfter = now();
              return;
            }
            if (res.status === 503) current = standby.url;
          } catch {
            current = standby.url;
          }
          await sleep(2);
        }
      })();
      await sleep(500);
      killedAt = now();
      leader.child.kill('SIGKILL');
      await flow.then(() => undefined, () => undefined);
      stop = true;
      await leader.exited;
      times.push(firstAfter - killedAt);
      const next = await spawnNode(db, 'standby');
      leader = standby;
      standby = next;
    }
    console.log(`3. failover (SIGKILL of the leader to the first order acknowledged by the new leader, STANDBY_LOCK_POLL_MS=50), ${rounds} rounds: ${times.map((t) => Math.round(t)).join(', ')} ms; p50 ${Math.round(pct(times, 50))} ms, max ${Math.round(Math.max(...times))} ms`);
  } finally {
    leader.child.kill('SIGKILL');
    standby.child.kill('SIGKILL');
    await Promise.all([leader.exited, standby.exited]);
    await dropDatabase(db);
  }
}

if (!isMainThread) {
  subscriberThread(workerData as SubscriberJob);
} else {
  const which = process.argv[2] ?? 'all';
  console.log(`cluster bench (node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  if (which === 'all' || which === 'delivery') await delivery();
  if (which === 'all' || which === 'fanout') await fanOut();
  if (which === 'all' || which === 'failover') await failover();
}
