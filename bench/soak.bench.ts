// `npm run bench:soak`: what the exchange keeps per event once its live state stops growing, and what
// a long log costs at a snapshot, a restart and a read of the fill history (figures: docs/benchmarks.md).
//
// The server runs as a child process (src/server/main.ts behind a bench-only entry, below) on
// PostgreSQL, on a database of its own, with every setting at its default (WS_FANOUT=process,
// SNAPSHOT_EVERY_EVENTS=50000, LOG_LEVEL=info, which logs each 'snapshot written' with its bytes)
// except ADMIN_API_TOKEN and PER_USER_REQUESTS_PER_SECOND, raised so the load is not rate limited.
// Setup over the admin API: BENCH_MARKETS markets, BENCH_TRADERS traders, BENCH_RESTING resting orders
// of quantity 1 spread over traders, markets and both sides, far from the crossing price (within the
// ±1000 worst-case exposure per trader, market and side: docs/architecture.md). Then BENCH_LOOPS
// keep-alive HTTP loops submit orders for BENCH_CROSSERS traders on the first market, each loop
// alternating BUY and SELL of 1 at one price: every order crosses or rests until the next one takes it,
// so the live state stays as it is while the history (orders, fills, the log) grows, until the log
// holds BENCH_EVENTS events (setup included). The load pauses BENCH_SAMPLES times; at each pause,
// once the writer has drained, the server runs a full GC (it runs with --expose-gc) and answers its
// heap and RSS over IPC; the fan-out child's RSS is read from /proc. Prints each sample, the slope by
// least squares (bytes per event) over the samples past BENCH_WARMUP of the run, the events/s and
// order latency of each stretch, every snapshot as logged, GET /api/v1/fills p50/p99 (a page of 100
// and the unpaged list) for the crossing traders, GET /api/v1/orders/{id} p50/p99 of orders only the
// history holds, then kills the server with SIGKILL, starts it again
// on the same database and times /health's first 200 and the first order accepted, with the recovery
// line's figures. A server that dies or a restart that fails is reported, not thrown, and the bench
// exits with 1. Never passes or fails on time.
//
// Environment (defaults in brackets):
//   BENCH_EVENTS [2000000]   events in the log when the load stops, setup included
//   BENCH_TRADERS [200]      traders provisioned
//   BENCH_RESTING [100000]   resting orders placed before the load
//   BENCH_MARKETS [4]        markets the resting orders are spread over; the first one is crossed
//   BENCH_LOOPS [32]         concurrent HTTP loops of crossing orders
//   BENCH_CROSSERS [8]       traders the loops submit for
//   BENCH_SAMPLES [10]       memory samples over the load (and one when the setup is done)
//   BENCH_WARMUP [0.2]       samples before this fraction of BENCH_EVENTS are left out of the slope
//   BENCH_FILLS_REQUESTS [300], BENCH_FILLS_SECONDS [60]   GET /fills (and /orders/{id}) requests per variant, and a time cap
//   BENCH_RESTART_TIMEOUT_S [300]   a restart not answering /health by then is reported as hung
//   BENCH_SERVER_ENV         extra server settings, `NAME=VALUE NAME=VALUE` (printed); none by default
//   BENCH_KEEP_DB=1          keep the database (its URL is printed); DATABASE_URL names the server
//   BENCH_QUICK=1            every part, small (bench/quick.ts): 10,000 events, 20 traders, 1,000 resting,
//                            8 loops for 4 crossers, 3 samples, 20 requests a variant, a snapshot every
//                            2,500 events (BENCH_SERVER_ENV), so the restart loads one: a check that it runs
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import v8 from 'node:v8';
import pg from 'pg';
import { createDatabase, dropDatabase } from '../test/support/postgres.ts';
import { setting, textSetting } from './quick.ts';

/** What the server entry answers to a memory question, after a full GC. */
interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly heapLimit: number;
  readonly gcMs: number;
}

// ---- the server entry: the exchange's own main, plus an answer to memory questions over IPC ----------

if (process.argv[2] === 'server') {
  process.on('message', () => {
    const started = performance.now();
    // Twice: the first collection queues finalizers whose objects only the second can free.
    globalThis.gc?.();
    globalThis.gc?.();
    const gcMs = performance.now() - started;
    const m = process.memoryUsage();
    process.send?.({ rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, heapLimit: v8.getHeapStatistics().heap_size_limit, gcMs } satisfies Memory);
  });
  // A bench that dies without killing its server must not leave it running.
  process.on('disconnect', () => process.exit(1));
  await import('../src/server/main.ts');
} else {
  await driver();
}

async function driver(): Promise<void> {
  const EVENTS = setting('BENCH_EVENTS', 2_000_000, 10_000);
  const TRADERS = setting('BENCH_TRADERS', 200, 20);
  const RESTING = setting('BENCH_RESTING', 100_000, 1_000);
  const MARKETS = setting('BENCH_MARKETS', 4, 4);
  const LOOPS = setting('BENCH_LOOPS', 32, 8);
  const CROSSERS = Math.min(setting('BENCH_CROSSERS', 8, 4), TRADERS);
  const SAMPLES = setting('BENCH_SAMPLES', 10, 3);
  const WARMUP = setting('BENCH_WARMUP', 0.2, 0.2);
  const FILLS_REQUESTS = setting('BENCH_FILLS_REQUESTS', 300, 20);
  const FILLS_SECONDS = setting('BENCH_FILLS_SECONDS', 60, 5);
  const RESTART_TIMEOUT_MS = setting('BENCH_RESTART_TIMEOUT_S', 300, 60) * 1000;
  const KEEP_DB = process.env['BENCH_KEEP_DB'] === '1';
  const EXTRA_ENV = Object.fromEntries(textSetting('BENCH_SERVER_ENV', '', 'SNAPSHOT_EVERY_EVENTS=2500').split(/\s+/).filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  const ADMIN = 'bench-soak-admin-token';
  const CROSS_PRICE = 1000;
  const perSide = Math.ceil(RESTING / (TRADERS * MARKETS * 2));
  if (perSide + LOOPS + 1 > 1000) throw new Error(`BENCH_RESTING=${RESTING} puts ${perSide} orders per trader, market and side (limit 1000 with the crossing load): raise BENCH_MARKETS or BENCH_TRADERS`);

  const mib = (b: number): string => (b / 1048576).toFixed(1);
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const pct = (xs: number[], p: number): number => {
    if (xs.length === 0) return NaN;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
  };

  // ---- HTTP --------------------------------------------------------------------------------------------
  let agent = new http.Agent({ keepAlive: true, maxSockets: LOOPS + 2 });
  let port = 0;
  interface Answer { readonly status: number; readonly text: string; readonly bytes: number; readonly ms: number }
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown, keep = true): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
      const started = performance.now();
      const req = http.request({ host: '127.0.0.1', port, method, path, agent: keep ? agent : false, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) } }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        // Big bodies (an unpaged fill list) are counted, not kept: only errors and small answers are read.
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (bytes < 1 << 20) chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: bytes < 1 << 20 ? Buffer.concat(chunks).toString() : '', bytes, ms: performance.now() - started }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  const admin = { authorization: `Bearer ${ADMIN}` };
  const codeOf = (a: Answer): string => {
    try {
      return `${a.status} ${(JSON.parse(a.text) as { code?: string }).code ?? ''}`.trim();
    } catch {
      return String(a.status);
    }
  };

  // ---- the server as a child process -------------------------------------------------------------------
  interface Server {
    readonly child: ChildProcess;
    readonly exited: Promise<string>;
    readonly tail: string[];
    readonly lines: Map<string, Record<string, unknown>>;
    dead: string | null;
  }
  const servers: Server[] = [];
  const snapshots: Record<string, unknown>[] = [];
  const problems = new Map<string, number>();
  let databaseUrl = '';

  const startServer = (label: string): Server => {
    const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', STORAGE_BACKEND: 'postgres', DATABASE_URL: databaseUrl, BIND_ADDR: `127.0.0.1:${port}`, ADMIN_API_TOKEN: ADMIN, PER_USER_REQUESTS_PER_SECOND: '1000000', ...EXTRA_ENV };
    const child = spawn(process.execPath, ['--expose-gc', import.meta.filename, 'server'], { cwd: new URL('..', import.meta.url).pathname, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const server: Server = { child, exited: Promise.resolve(''), tail: [], lines: new Map(), dead: null };
    const keep = (line: string): void => {
      server.tail.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
      if (server.tail.length > 15) server.tail.shift();
    };
    let partial = '';
    child.stdout?.on('data', (d: Buffer) => {
      const parts = (partial + d.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        keep(line);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        const msg = String(entry['msg']);
        server.lines.set(msg, entry);
        if (msg === 'snapshot written' || msg === 'snapshot not written') {
          snapshots.push({ server: label, ...entry });
          console.log(
            `   [${label}] ${msg}: ${msg === 'snapshot written' ? `seq ${fmt(Number(entry['seq']))}, ${mib(Number(entry['bytes']))} MiB of text, ${mib(Number(entry['stored_bytes'] ?? entry['bytes']))} MiB stored (${(Number(entry['bytes']) / Number(entry['seq'])).toFixed(0)} B/event), folded ${fmt(Number(entry['folded']))}, ${fmt(Number(entry['total_ms']))} ms` : String(entry['err'])}`,
          );
        } else if (Number(entry['level']) >= 40) {
          const key = `[${label}] ${msg}${entry['err'] === undefined ? '' : `: ${JSON.stringify(entry['err']).slice(0, 300)}`}`;
          if (!problems.has(key)) console.log(`   ${key}`);
          problems.set(key, (problems.get(key) ?? 0) + 1);
        }
      }
    });
    child.stderr?.on('data', (d: Buffer) => d.toString().split('\n').filter((l) => l !== '').forEach((l) => keep(`stderr: ${l}`)));
    (server as { exited: Promise<string> }).exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        server.dead = `exited with ${signal ?? `code ${code}`}`;
        resolve(server.dead);
      }),
    );
    servers.push(server);
    return server;
  };
  const report = (s: Server, what: string): void => console.log(`   ${what}: the server ${s.dead ?? 'is alive'}; its last output:\n     ${s.tail.join('\n     ')}`);
  /** Ends with the server's death, whatever `work` was waiting for. */
  const orDeath = <T>(s: Server, work: Promise<T>): Promise<T> => Promise.race([work, s.exited.then((how) => Promise.reject(new Error(`the server ${how}`)))]);

  const memory = (s: Server): Promise<Memory> =>
    orDeath(s, new Promise<Memory>((resolve) => {
      s.child.once('message', (m) => resolve(m as Memory));
      s.child.send({ op: 'memory' });
    }));
  /** The RSS of the server's children (the fan-out process), from /proc. */
  const childrenOf = (pid: number): number[] =>
    readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    }).map(Number);
  /** CPU time (user + system, every thread) of a process, in ms, from /proc (clock ticks of 10 ms). */
  const cpuOf = (pid: number): number => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const stat = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return (Number(stat[11]) + Number(stat[12])) * 10;
    } catch {
      return NaN;
    }
  };
  const rssOf = (pid: number, field = 'VmRSS'): number => {
    try {
      return Number(/(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field)) ?? '')?.[1] ?? NaN) * 1024;
    } catch {
      return NaN;
    }
  };
  /** The log's head once the writer has drained (nothing queued or in flight). */
  const drainedSeq = async (s: Server): Promise<number> => {
    let last = -1;
    for (;;) {
      const a = await orDeath(s, call('GET', '/api/v1/admin/state', admin));
      const p = (JSON.parse(a.text) as { persistence: { durable_seq: number; queue_depth: number; in_flight_ops: number } }).persistence;
      if (p.queue_depth === 0 && p.in_flight_ops === 0 && p.durable_seq === last) return last;
      last = p.durable_seq;
      await sleep(100);
    }
  };

  // ---- cleanup, whatever happens -------------------------------------------------------------------------
  let cleaned = false;
  const cleanup = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    agent.destroy();
    for (const s of servers) {
      const kids = s.child.pid === undefined ? [] : childrenOf(s.child.pid);
      if (s.dead === null) s.child.kill('SIGKILL');
      for (const k of kids) kill(k);
    }
    if (databaseUrl === '') return;
    if (KEEP_DB) console.log(`database kept: ${databaseUrl}`);
    else await dropDatabase(databaseUrl);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().finally(() => process.exit(130)));

  try {
    await run();
  } catch (err) {
    // A request cut short by the server's death may be seen before its exit: give the exit a moment.
    await sleep(500);
    const s = servers[servers.length - 1];
    if (s?.dead === null || s === undefined) throw err;
    report(s, `STOPPED (${(err as Error).message})`);
    process.exitCode = 1;
  } finally {
    if (problems.size > 0) console.log(`warnings and errors the server logged: ${[...problems].map(([k, n]) => `${k} (x${n})`).join('; ')}`);
    console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    await cleanup();
  }

  async function run(): Promise<void> {
    let head = '';
    try {
      head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() + (execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() === '' ? '' : ' (modified)');
    } catch {
      head = 'unknown';
    }
    console.log(`bench:soak  ${new Date().toISOString()}  ${os.cpus()[0]?.model ?? '?'} x ${os.cpus().length}, ${mib(os.totalmem())} MiB, node ${process.version}, code ${head}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`BENCH_EVENTS=${EVENTS} BENCH_TRADERS=${TRADERS} BENCH_RESTING=${RESTING} BENCH_MARKETS=${MARKETS} BENCH_LOOPS=${LOOPS} BENCH_CROSSERS=${CROSSERS} BENCH_SAMPLES=${SAMPLES} BENCH_WARMUP=${WARMUP}; server settings beyond the defaults: ${JSON.stringify(EXTRA_ENV)}`);

    port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    databaseUrl = await createDatabase('exchange_soak');
    console.log(`database ${new URL(databaseUrl).pathname.slice(1)}, server on port ${port}`);

    let server = startServer('server');
    const upAt = await waitUp(server, RESTART_TIMEOUT_MS);
    if (upAt === null) {
      report(server, 'the server did not start');
      process.exitCode = 1;
      return;
    }

    // ---- setup ----
    const markets = Array.from({ length: MARKETS }, (_, i) => `SOAK${i}-USD`);
    let a = await orDeath(server, call('POST', '/api/v1/admin/config/load', admin, { trading_enabled: true, markets: markets.map((m) => ({ market_id: m, base_asset: m.split('-')[0], quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: CROSS_PRICE, enabled: true })) }));
    if (a.status !== 200) throw new Error(`config/load: ${a.status} ${a.text}`);
    a = await orDeath(server, call('POST', '/api/v1/admin/users/bulk', admin, Array.from({ length: TRADERS }, (_, i) => `soak-${i}`)));
    if (a.status !== 201) throw new Error(`users/bulk: ${a.status} ${a.text}`);
    const keys = (JSON.parse(a.text) as { profiles: { api_key: string }[] }).profiles.map((p) => p.api_key);
    const crossKeys = keys.slice(0, CROSSERS);

    // Resting orders: trader, market and side in turn; buys at 1..500, sells at 1501..2000, never near CROSS_PRICE.
    let next = 0;
    const refused = new Map<string, number>();
    const restStarted = performance.now();
    await orDeath(server, Promise.all(Array.from({ length: LOOPS }, async () => {
      for (let j = next++; j < RESTING; j = next++) {
        const side = Math.floor(j / (TRADERS * MARKETS)) % 2 === 0 ? 'BUY' : 'SELL';
        const price = side === 'BUY' ? 1 + (j % 500) : 1501 + (j % 500);
        const r = await call('POST', '/api/v1/orders', { 'x-api-key': keys[j % TRADERS] as string }, { market: markets[Math.floor(j / TRADERS) % MARKETS], side, price, quantity: 1 });
        if (r.status !== 201) refused.set(codeOf(r), (refused.get(codeOf(r)) ?? 0) + 1);
      }
    })));
    const setupSeq = await drainedSeq(server);
    console.log(`setup: ${MARKETS} markets, ${TRADERS} traders, ${fmt(RESTING)} resting orders (${perSide} per trader, market and side at most) in ${((performance.now() - restStarted) / 1000).toFixed(1)} s; refused: ${JSON.stringify(Object.fromEntries(refused))}; log at seq ${fmt(setupSeq)}`);

    // ---- the crossing load, in stretches between samples ----
    interface Sample { readonly seq: number; readonly heap: number; readonly rss: number; readonly childRss: number; readonly external: number }
    const samples: Sample[] = [];
    const sample = async (seq: number): Promise<void> => {
      const m = await memory(server);
      const kids = childrenOf(server.child.pid as number);
      const childRss = kids.reduce((sum, k) => sum + rssOf(k), 0);
      samples.push({ seq, heap: m.heapUsed, rss: m.rss, childRss, external: m.external });
      console.log(`   sample at seq ${fmt(seq).padStart(9)}: heap ${mib(m.heapUsed).padStart(7)} MiB (limit ${mib(m.heapLimit)}), external ${mib(m.external)} MiB, RSS ${mib(m.rss).padStart(7)} MiB (peak ${mib(rssOf(server.child.pid as number, 'VmHWM'))}), fan-out child RSS ${mib(childRss)} MiB (peak ${mib(kids.reduce((sum, k) => sum + rssOf(k, 'VmHWM'), 0))}); gc ${m.gcMs.toFixed(0)} ms`);
    };
    await sample(setupSeq);

    let tickets = 0;
    let finished = false;
    let idle = 0;
    let resume: () => void = () => {};
    let resumed = new Promise<void>((r) => (resume = r));
    let allIdle: () => void = () => {};
    let latencies: number[] = [];
    const errors = new Map<string, number>();
    const loop = async (i: number): Promise<void> => {
      const headers = { 'x-api-key': crossKeys[i % CROSSERS] as string };
      const bodies = (['BUY', 'SELL'] as const).map((side) => JSON.stringify({ market: markets[0], side, price: CROSS_PRICE, quantity: 1 }));
      let side = i % 2;
      for (;;) {
        if (tickets <= 0) {
          if (++idle === LOOPS) allIdle();
          await resumed;
          if (finished || server.dead !== null) return;
          continue;
        }
        tickets--;
        try {
          const r = await call('POST', '/api/v1/orders', headers, bodies[side]);
          latencies.push(r.ms);
          if (r.status !== 201) errors.set(codeOf(r), (errors.get(codeOf(r)) ?? 0) + 1);
        } catch (err) {
          errors.set(String((err as Error).message), (errors.get((err as Error).message) ?? 0) + 1);
          if (server.dead !== null) return;
        }
        side = 1 - side;
      }
    };
    /** Lets the loops submit `n` orders; resolves once they all wait again. */
    const stretch = (n: number): Promise<void> => {
      const done = new Promise<void>((r) => (allIdle = r));
      idle = 0;
      tickets = n;
      const go = resume;
      resumed = new Promise<void>((r) => (resume = r));
      go();
      return orDeath(server, done);
    };
    const loops = Array.from({ length: LOOPS }, (_, i) => loop(i));
    await new Promise<void>((r) => setImmediate(r));
    let seq = setupSeq;
    let loadMs = 0;
    const step = Math.ceil(EVENTS / SAMPLES);
    for (let target = (Math.floor(seq / step) + 1) * step; seq < EVENTS; target = Math.min(EVENTS, target + step)) {
      const from = seq;
      const started = performance.now();
      const pid = server.child.pid as number;
      const kids = childrenOf(pid);
      const cpu = [cpuOf(pid), kids.reduce((t, k) => t + cpuOf(k), 0), process.cpuUsage()];
      latencies = [];
      // Refused orders (reported) write no event: the stretch goes on until the log reaches the target.
      while (seq < Math.min(target, EVENTS)) {
        await stretch(Math.min(target, EVENTS) - seq);
        seq = await drainedSeq(server);
      }
      const ms = performance.now() - started;
      loadMs += ms;
      const own = process.cpuUsage(cpu[2] as NodeJS.CpuUsage);
      const perEvent = (ms: number): string => `${((ms * 1000) / (seq - from)).toFixed(0)} µs`;
      console.log(`load seq ${fmt(from)}..${fmt(seq)}: ${fmt(((seq - from) / ms) * 1000)} events/s, order p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms; CPU per event: server ${perEvent(cpuOf(pid) - (cpu[0] as number))}, fan-out child ${perEvent(kids.reduce((t, k) => t + cpuOf(k), 0) - (cpu[1] as number))}, this driver ${perEvent((own.user + own.system) / 1000)}${errors.size === 0 ? '' : `; refused so far ${JSON.stringify(Object.fromEntries(errors))}`}`);
      await sample(seq);
    }
    console.log(`load: ${fmt(seq - setupSeq)} events in ${(loadMs / 1000).toFixed(1)} s (with the drains), ${fmt(((seq - setupSeq) / loadMs) * 1000)} events/s`);

    // ---- retained per event: least squares over the samples past the warm-up ----
    const past = samples.filter((s) => s.seq >= WARMUP * EVENTS && s.seq > setupSeq);
    const slope = (ys: (s: Sample) => number): number => {
      const n = past.length;
      const mx = past.reduce((t, s) => t + s.seq, 0) / n;
      const my = past.reduce((t, s) => t + ys(s), 0) / n;
      return past.reduce((t, s) => t + (s.seq - mx) * (ys(s) - my), 0) / past.reduce((t, s) => t + (s.seq - mx) ** 2, 0);
    };
    if (past.length >= 2) {
      const h = slope((s) => s.heap);
      const r = slope((s) => s.rss);
      const c = slope((s) => s.childRss);
      console.log(`retained per event past seq ${fmt(past[0]?.seq ?? 0)} (${past.length} samples, least squares): heap ${h.toFixed(1)} B/event (goal ≤ 20: ${(h / 20).toFixed(1)}x), RSS ${r.toFixed(1)} B/event, fan-out child RSS ${c.toFixed(1)} B/event, external ${slope((s) => s.external).toFixed(1)} B/event`);
      const last = samples[samples.length - 1] as Sample;
      console.log(`   at 5,000,000 events by these slopes: heap ${mib(last.heap + h * (5e6 - last.seq))} MiB, RSS ${mib(last.rss + r * (5e6 - last.seq))} MiB + fan-out child ${mib(last.childRss + c * (5e6 - last.seq))} MiB (goal: RSS under 1024)`);
    } else console.log('retained per event: fewer than 2 samples past the warm-up (raise BENCH_EVENTS or BENCH_SAMPLES)');

    // ---- snapshots: as logged, and the rows kept ----
    const written = snapshots.filter((s) => s['msg'] === 'snapshot written');
    // Every size when there are a few; the first, the last and the range when there are many.
    const sized = written.map((s) => ({ seq: Number(s['seq']), text: Number(s['bytes']), stored: Number(s['stored_bytes'] ?? s['bytes']) }));
    const one = (s: { seq: number; text: number; stored: number }): string => `${fmt(s.seq)}: ${mib(s.text)} / ${mib(s.stored)} MiB`;
    const range = (pick: (s: { text: number; stored: number }) => number): string => `${mib(Math.min(...sized.map(pick)))}-${mib(Math.max(...sized.map(pick)))}`;
    const listed = sized.length <= 12 ? sized.map(one).join(', ') : `${one(sized[0] as (typeof sized)[number])}, ..., ${one(sized[sized.length - 1] as (typeof sized)[number])}; text ${range((s) => s.text)} MiB, stored ${range((s) => s.stored)} MiB`;
    const held = written.map((s) => Number(s['blocked_ms']) * 1000).filter((us) => Number.isFinite(us));
    console.log(`snapshots written: ${written.length}, not written: ${snapshots.length - written.length}; sizes (text / stored) ${listed}${held.length === 0 ? '' : `; the trading thread held ${Math.min(...held).toFixed(0)}-${Math.max(...held).toFixed(0)} µs each`}`);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    // Stored as the table holds them: the snapshot row's own text and its pieces (gzipped), if any.
    const rows = (await db.query<{ seq: string; bytes: number }>('select s.seq, (octet_length(s.state) + coalesce((select sum(octet_length(p.body)) from snapshot_pieces p where p.seq = s.seq), 0))::float8 as bytes from snapshots s order by s.seq')).rows;
    // On disk, dead rows included (what a vacuum has not yet freed counts): what the log and its history cost.
    const tables = (await db.query<{ name: string; bytes: number }>(
      `select relname as name, pg_total_relation_size(oid)::float8 as bytes from pg_class
        where relkind = 'r' and relnamespace = 'public'::regnamespace and relname in ('events', 'fill_history', 'order_history', 'candle_minutes', 'snapshots', 'snapshot_pieces')
        order by 2 desc`,
    )).rows;
    const logHead = Number((await db.query<{ head: string }>('select coalesce(max(seq), 0) as head from events')).rows[0]?.head ?? 0);
    await db.end();
    console.log(`   rows kept in the snapshots table: ${rows.map((r) => `seq ${fmt(Number(r.seq))} ${mib(r.bytes)} MiB`).join(', ') || 'none'}`);
    const total = tables.reduce((sum, t) => sum + t.bytes, 0);
    console.log(`on disk at seq ${fmt(logHead)}: ${tables.map((t) => `${t.name} ${mib(t.bytes)} MiB (${(t.bytes / Math.max(1, logHead)).toFixed(0)} B/event)`).join(', ')}; ${mib(total)} MiB in all, ${(total / Math.max(1, logHead)).toFixed(0)} B/event`);

    // ---- GET /fills for the crossing traders, one request at a time ----
    for (const path of ['/api/v1/fills?limit=100', '/api/v1/fills']) {
      const times: number[] = [];
      let bytes = 0;
      const codes = new Map<string, number>();
      const until = performance.now() + FILLS_SECONDS * 1000;
      for (let i = 0; i < FILLS_REQUESTS && performance.now() < until; i++) {
        const r = await orDeath(server, call('GET', path, { 'x-api-key': crossKeys[i % CROSSERS] as string }));
        if (r.status !== 200) codes.set(codeOf(r), (codes.get(codeOf(r)) ?? 0) + 1);
        times.push(r.ms);
        bytes += r.bytes;
      }
      console.log(`GET ${path}: ${times.length} requests, p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms, ${mib(bytes / times.length)} MiB per answer${codes.size === 0 ? '' : `; not 200: ${JSON.stringify(Object.fromEntries(codes))}`}`);
    }

    // ---- GET /orders/{id} of orders only the history holds ----
    // Their ids from a crossing trader's fills some 10,000 back (100 pages of 100): far past the books'
    // window of 8,192 finished orders, so every lookup is the database's. A fill names its maker's and
    // its taker's orders; the other trader's order is 404 after the same lookup, so both are timed.
    {
      const key = crossKeys[0] as string;
      let before: string | null = null;
      let fills: { maker_order_id: string; taker_order_id: string }[] = [];
      for (let i = 0; i < 100; i++) {
        const r = await orDeath(server, call('GET', `/api/v1/fills?limit=100${before === null ? '' : `&before=${encodeURIComponent(before)}`}`, { 'x-api-key': key }));
        if (r.status !== 200) break;
        const page = JSON.parse(r.text) as { fills: typeof fills; next: string | null };
        fills = page.fills;
        if (page.next === null) break;
        before = page.next;
      }
      const ids = fills.flatMap((f) => [f.maker_order_id, f.taker_order_id]);
      const times: number[] = [];
      const codes = new Map<string, number>();
      const until = performance.now() + FILLS_SECONDS * 1000;
      for (let i = 0; i < FILLS_REQUESTS && ids.length > 0 && performance.now() < until; i++) {
        const r = await orDeath(server, call('GET', `/api/v1/orders/${ids[i % ids.length] as string}`, { 'x-api-key': key }));
        codes.set(String(r.status), (codes.get(String(r.status)) ?? 0) + 1);
        times.push(r.ms);
      }
      console.log(`GET /api/v1/orders/{id} of orders only the history holds: ${times.length} requests, p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms, max ${times.length === 0 ? 0 : Math.max(...times).toFixed(1)} ms; status ${JSON.stringify(Object.fromEntries(codes))}`);
    }

    // ---- kill -9 and restart on the same database ----
    const kids = childrenOf(server.child.pid as number);
    const killedAt = performance.now();
    server.child.kill('SIGKILL');
    await server.exited;
    for (let i = 0; i < 50 && kids.some((k) => rssOf(k) > 0); i++) await sleep(100);
    for (const k of kids.filter((k) => rssOf(k) > 0)) kill(k);
    console.log(`kill -9 at seq ${fmt(seq)}: the server was gone in ${(performance.now() - killedAt).toFixed(0)} ms`);
    finished = true;
    resume();
    await Promise.all(loops);
    agent.destroy();
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    server = startServer('restart');
    const started = performance.now();
    const wallStarted = Date.now();
    const health = await waitUp(server, RESTART_TIMEOUT_MS);
    const rec = server.lines.get('event log recovered from PostgreSQL');
    const at = (msg: string): string => {
      const time = server.lines.get(msg)?.['time'];
      return `'${msg}' ${time === undefined ? 'not logged' : `at ${((Date.parse(String(time)) - wallStarted) / 1000).toFixed(2)} s`}`;
    };
    console.log(`restart timeline from the spawn (log times): ${['event log recovered from PostgreSQL', 'state recovered', 'exchange listening'].map(at).join(', ')}`);
    console.log(`   recovery: ${rec === undefined ? 'not logged' : JSON.stringify(rec, ['seq', 'snapshot_seq', 'folded', 'snapshot_ms', 'fold_ms'])}, 'state recovered' ${String(server.lines.get('state recovered')?.['ms'])} ms`);
    if (health === null) {
      report(server, `RESTART FAILED after ${((performance.now() - started) / 1000).toFixed(1)} s`);
      process.exitCode = 1;
      return;
    }
    let accepted = NaN;
    for (let i = 0; i < 200; i++) {
      const r = await orDeath(server, call('POST', '/api/v1/orders', { 'x-api-key': crossKeys[0] as string }, { market: markets[0], side: 'BUY', price: CROSS_PRICE, quantity: 1 }));
      if (r.status === 201) {
        accepted = performance.now() - started;
        break;
      }
      await sleep(20);
    }
    console.log(`restart: /health 200 after ${(health / 1000).toFixed(2)} s, first order accepted after ${(accepted / 1000).toFixed(2)} s`);
    await sample(await drainedSeq(server));
  }

  function kill(pid: number): void {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Milliseconds from now until GET /health answers 200, or null if the server died or the time ran out. */
  async function waitUp(s: Server, timeoutMs: number): Promise<number | null> {
    const started = performance.now();
    while (s.dead === null && performance.now() - started < timeoutMs) {
      const r = await call('GET', '/health', {}, undefined, false).catch(() => null);
      if (r?.status === 200) return performance.now() - started;
      await sleep(20);
    }
    return null;
  }
}
