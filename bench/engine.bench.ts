// The core alone (decide + append + every projection, no I/O): commands/s and latency percentiles of a
// mixed workload (60% submit, some crossing; 30% cancel; 10% amend) against books of 1k, 100k and 1M
// resting orders, and heap bytes per resting order. Beside it, the same mix with the options of
// trading-extensions.md (20% IOC, 5% FOK, 10% post-only, 5% market orders, self-trade prevention on half
// of the orders, client order ids on half, a cancel-all every 1,000 commands), and the heap a remembered
// client order id costs. A reference loop (build an order object, index it
// in a Map, drop it) runs in the same process, so the ratio stays meaningful on a noisy machine. Under
// each run, its latency by what each command did (rested, traded against 1, 2 or 3+ orders, cancel,
// amend, refused), and which of those make the slowest 1%. Under the base mix, the machine's own tail:
// fixed work sized to the run's median, timed the same way: what the machine alone does to the p99.9.
//
//   npm run bench:engine            (all sizes)
//   npm run bench:engine -- 1000    (one size)
//   BENCH_MIX=base BENCH_MEMORY=0 npm run bench:engine -- 1000   (quick A/B runs: base mix, no memory figures)
//   BENCH_QUICK=1 npm run bench:engine   (a few seconds: 1,000 resting, 20,000 commands; what the test of every benchmark runs)
//
// The exchange runs as the in-memory server runs it: the in-memory log, and books that keep every order
// since the last reset. Beside each base mix, the same commands against the live state as the
// PostgreSQL server keeps it (the window of the 8,192 most recently finished orders; a log that keeps
// nothing, the writer's batches having left the process), and given to nodejs-order-book 10.1.1 in a
// process of its own (bench/engine/peer-order-book.ts): the exchange's rate against the best JavaScript
// order book's. BENCH_WINDOW=0, BENCH_PEER=0 and BENCH_RULES=0 leave those out. After each mix, the same mix with fees
// and limits set on every market (withRules): its rate against the mix without them, in the same process.
import { GTC_LIMIT } from '../src/commands/order-terms.ts';
import { spawnSync } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { Exchange } from '../src/commands/exchange.ts';
import type { EventLog } from '../src/events/event-log.ts';
import type { Command } from '../src/commands/types.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { Refusal } from '../src/commands/errors.ts';
import { DuplicateSubmission } from '../src/commands/duplicate-submission.ts';
import { RECENT_ORDERS } from '../src/projections/orders/order-store.ts';
import { nextTime, uuid } from './command-strings.ts';
import { MID, prefill, provisioning, session, workload, type Session } from './engine/workload.ts';
import { quick, setting } from './quick.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

interface Setup extends Session {
  readonly exchange: Exchange;
}

/** A log that keeps nothing, as the PostgreSQL backend keeps nothing once a batch is written. */
class DiscardingLog implements EventLog {
  headSeq = 0;
  append(): void {
    this.headSeq++;
  }
}

/**
 * How the exchange keeps what it is given: `memory` as the in-memory server (the log and every order
 * since the last reset), `window` as the PostgreSQL server's live state (a log that keeps nothing and
 * the default window of finished orders), `state` the in-memory server's state alone (for its heap).
 */
type Keeping = 'memory' | 'window' | 'state';

/**
 * The competition rules set on every market (competition-rules.md): a maker rebate and a taker fee, a
 * position limit and a cap on open orders, each bound checked on every order, none binding in the
 * workload (a trader keeps ~400 resting per side per market).
 */
const RULES = { maker_fee_bps: -1, taker_fee_bps: 3, position_limit: 5000, max_open_orders: 2000 };

function setup(resting: number, keeping: Keeping, rules = false): Setup {
  // The ring of recent deltas as the server sizes it by default (max(WS_BROADCAST_BUFFER, 1024)).
  const exchange = new Exchange(
    keeping === 'memory' ? { deltaRing: 1024, recentOrders: Number.POSITIVE_INFINITY } : keeping === 'state' ? { deltaRing: 1024, recentOrders: Number.POSITIVE_INFINITY, log: new DiscardingLog() } : { deltaRing: 1024, log: new DiscardingLog() },
  );
  // Listeners on every feed, as the server's service has, so the feeds build what they would there.
  exchange.state.events$.subscribe(() => {});
  exchange.state.marketData.deltas$.subscribe(() => {});
  exchange.state.privateFeed.events$.subscribe(() => {});
  const s: Setup = { exchange, ...session(resting) };
  for (const command of provisioning(s)) exchange.execute(command);
  if (rules) for (const m of exchange.state.markets.list()) exchange.execute({ type: 'PatchMarket', time: nextTime(), market_id: m.market_id, changes: RULES });
  for (const command of prefill(s, resting)) exchange.execute(command);
  return s;
}

/**
 * The same mix with RULES on every market against it without them, each on a fresh book of the same
 * size, run in alternating slices of 2,000 commands (ABBA), so that both meet the same moments of a
 * shared machine: the median of the slices' rate ratios is the cost of the rules (a slice the machine
 * slowed moves the median little; the totals it moves a lot).
 */
function withRules(size: number, mix: 'base' | 'extensions'): void {
  const books = [setup(size, 'memory'), setup(size, 'memory', true)];
  const runs = books.map((b) => {
    tryEach(b, workload(b, Math.min(50_000, COMMANDS), mix === 'base' ? 99 : 98, mix));
    return workload(b, COMMANDS, size, mix);
  });
  gc();
  const SLICE = 2_000;
  const totals = [0, 0];
  const ratios: number[] = [];
  for (let from = 0, turn = 0; from < COMMANDS; from += SLICE, turn++) {
    const took = [0, 0];
    for (const side of turn % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = process.hrtime.bigint();
      tryEach(books[side] as Setup, (runs[side] as Command[]).slice(from, from + SLICE));
      took[side] = Number(process.hrtime.bigint() - start) / 1e9;
      totals[side] = (totals[side] as number) + (took[side] as number);
    }
    ratios.push((took[0] as number) / (took[1] as number));
  }
  const median = Float64Array.from(ratios).sort()[ratios.length >> 1] as number;
  console.log(
    `  ${mix} mix with fees and limits on every market ${JSON.stringify(RULES)}, alternating with it without them: ` +
      `${Math.round(COMMANDS / (totals[1] as number)).toLocaleString('en-US')} vs ${Math.round(COMMANDS / (totals[0] as number)).toLocaleString('en-US')} commands/s; ` +
      `with/without, median of ${ratios.length} slices ${median.toFixed(3)}`,
  );
}

/** Runs commands as runEngine does, untimed (refusals and repeated client order ids are answers). */
function tryEach(s: Setup, commands: readonly Command[]): void {
  for (const c of commands) {
    try {
      s.exchange.tryExecute(c);
    } catch (err) {
      if (!(err instanceof DuplicateSubmission)) throw err;
    }
  }
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

interface EngineRun {
  readonly perSecond: number;
  /** Commands per second of the process's CPU time (less sensitive to other work on a shared machine). */
  readonly perCpuSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  /** The slowest command: a stall (a collection, a structure growing at once) shows here first. */
  readonly max: number;
  readonly refused: number;
  /** Garbage collection pauses during the run, as a share of its wall time. */
  readonly gcShare: number;
  /** Pages the process touched for the first time during the run (minor page faults), per command. */
  readonly faultsPerCommand: number;
  /** Heap the run left behind (the history: orders, events, fills), per command, after a full collection. */
  readonly keptPerCommand: number;
  /** Latency by what the command did (KIND_NAMES), and which kinds make the slowest 1% of the run. */
  readonly tail: string;
}

// What each command did, for the latency tail by kind: an order that rests (or leaves unfilled: an IOC
// that met nothing), one that trades against 1, 2 or 3+ resting orders, a cancel, an amend, a refusal,
// anything else (a cancel-all). Recorded as a byte per command, so the timed loop only stores it.
const KIND_NAMES = ['submit, rests', 'submit, 1 fill', 'submit, 2 fills', 'submit, 3+ fills', 'cancel', 'amend', 'refused', 'other'] as const;

function kindOf(outcome: ExchangeEvent | Refusal): number {
  if (outcome instanceof Refusal) return 6;
  switch (outcome.type) {
    case 'OrderSubmitted':
      return Math.min(outcome.data.fills.length, 3);
    case 'OrderCanceled':
      return 4;
    case 'OrderAmended':
      return 5;
    default:
      return 7;
  }
}

/**
 * Per kind with any commands: its share of the run, its p50 and p99, and its share of the commands
 * slower than the run's p99 (the tail the p99 goal is about).
 */
function tailByKind(lat: Float64Array, kinds: Uint8Array, p99: number): string {
  const byKind = KIND_NAMES.map((): number[] => []);
  for (let i = 0; i < lat.length; i++) (byKind[kinds[i] as number] as number[]).push(lat[i] as number);
  let slow = 0;
  for (let i = 0; i < lat.length; i++) if ((lat[i] as number) > p99) slow++;
  const parts: string[] = [];
  byKind.forEach((values, k) => {
    if (values.length === 0) return;
    const sorted = Float64Array.from(values).sort();
    let over = 0;
    for (const v of sorted) if (v > p99) over++;
    parts.push(`${KIND_NAMES[k]} ${((100 * values.length) / lat.length).toFixed(1)}%: p50 ${(percentile(sorted, 0.5) / 1000).toFixed(2)} p99 ${(percentile(sorted, 0.99) / 1000).toFixed(2)} µs, ${slow === 0 ? 0 : ((100 * over) / slow).toFixed(0)}% of the slowest 1%`);
  });
  return parts.join('; ');
}

// Every GC pause of the process, as V8 reports it (entries arrive after the fact; runEngine awaits them).
const gcPauses: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, duration: e.duration });
}).observe({ entryTypes: ['gc'] });

async function runEngine(s: Setup, commands: Command[]): Promise<EngineRun> {
  const lat = new Float64Array(commands.length);
  const kinds = new Uint8Array(commands.length);
  let refused = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  const faults = process.resourceUsage().minorPageFault;
  const cpu = process.cpuUsage();
  const from = performance.now();
  const start = process.hrtime.bigint();
  let prev = start;
  for (let i = 0; i < commands.length; i++) {
    // tryExecute: a refusal is an answer, returned as a value (the service turns it into its reply).
    try {
      const outcome = s.exchange.tryExecute(commands[i] as Command);
      if (outcome instanceof Refusal) refused++;
      kinds[i] = kindOf(outcome);
    } catch (err) {
      if (!(err instanceof DuplicateSubmission)) throw err;
      refused++;
      kinds[i] = 6;
    }
    const now = process.hrtime.bigint();
    lat[i] = Number(now - prev);
    prev = now;
  }
  const seconds = Number(prev - start) / 1e9;
  const used = process.cpuUsage(cpu);
  const faulted = process.resourceUsage().minorPageFault - faults;
  const to = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  let gcMs = 0;
  for (const p of gcPauses) if (p.start >= from && p.start < to) gcMs += p.duration;
  // Sorted apart: the tail by kind pairs each latency with its command's kind, in run order.
  const sorted = Float64Array.from(lat).sort();
  const tail = tailByKind(lat, kinds, percentile(sorted, 0.99));
  // The callers collect before the run, so what a collection leaves now is what the run kept.
  gc();
  const kept = process.memoryUsage().heapUsed - heapBefore;
  return {
    perSecond: commands.length / seconds,
    perCpuSecond: commands.length / ((used.user + used.system) / 1e6),
    p50: percentile(sorted, 0.5) / 1000,
    p99: percentile(sorted, 0.99) / 1000,
    p999: percentile(sorted, 0.999) / 1000,
    max: (sorted[sorted.length - 1] ?? Number.NaN) / 1000,
    refused,
    gcShare: gcMs / (to - from),
    faultsPerCommand: faulted / commands.length,
    keptPerCommand: kept / commands.length,
    tail,
  };
}

/** The reference: per command, build an order-like object and index it in a Map, dropping old ones. */
function runReference(count: number): number {
  const map = new Map<string, { id: string; price: number; quantity: number; side: string; created_at: string }>();
  const ids = Array.from({ length: 1024 }, (_, i) => uuid(i));
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const id = ids[i & 1023] as string;
    if (i % 3 === 2) map.delete(id);
    else map.set(id, { id, price: MID + (i & 63), quantity: 1 + (i & 3), side: i & 1 ? 'BUY' : 'SELL', created_at: 'x' });
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return count / seconds;
}

/**
 * What this machine charges for a page of memory touched for the first time, in µs: copies of a 4 MiB
 * array of doubles (a new chunk of the stores' columns is one), timed and divided by the page faults
 * they caused. A page costs about 0.1-0.3 µs on bare metal; on a virtual machine whose host backs guest
 * memory lazily it can cost 50 times that, which then shows in every figure of a store that grows (the
 * order history and the log grow by a few hundred bytes a command), so the benchmark prints it beside
 * them.
 */
function freshPageMicros(): number {
  const template: number[] = [0.5];
  template[0] = 0;
  let blank = template;
  while (blank.length < 1 << 19) blank = blank.concat(blank);
  // Every copy stays referenced until the end, so each one takes memory of its own.
  const copies: number[][] = [];
  const faults = process.resourceUsage().minorPageFault;
  const start = performance.now();
  for (let i = 0; i < 8; i++) copies.push(blank.slice());
  const micros = (performance.now() - start) * 1000;
  const touched = process.resourceUsage().minorPageFault - faults;
  return copies.length > 0 && touched > 0 ? micros / touched : Number.NaN;
}

let pageMicros = Number.NaN;

/**
 * The machine's own tail at the engine's scale: the same number of iterations of fixed work (reads and
 * a write of an array of doubles, no allocation) sized to the run's median command, each timed as
 * runEngine times a command, right after the run. What stretches an iteration (the host taking the core
 * away, interrupts) strikes at moments, not at kinds of work: a run of the same length meets as many
 * such moments, and the engine's run, whose mean command is longer than its median, meets at least as
 * many. So the share of iterations over the p99.9 goal (20 µs) estimates the share of commands pushed
 * over it by the machine alone: above 0.1%, the goal cannot be shown in this run whatever the engine
 * does. An estimate from one sample of a machine that changes from minute to minute, not a bound. On
 * the development machine of 2026-11-28 (an AMD EPYC, 2 cores) fixed work of ~1.6 µs had a p99 of
 * 1.6-3.5 µs but a p99.9 of 38-50 µs (docs/benchmarks.md, Engine).
 */
function machineTail(count: number, medianMicros: number): { p50: number; p99: number; p999: number; overGoal: number } {
  const cells = new Float64Array(4096);
  let sink = 0;
  const work = (k: number, steps: number): void => {
    let x = 0;
    for (let j = 0; j < steps; j++) x += (cells[(k * 31 + j) & 4095] as number) * 1.000001;
    cells[k & 4095] = x % 7;
    sink += x;
  };
  const timed = (n: number, steps: number): Float64Array => {
    const lat = new Float64Array(n);
    let prev = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      work(i, steps);
      const now = process.hrtime.bigint();
      lat[i] = Number(now - prev);
      prev = now;
    }
    return lat.sort();
  };
  // Sized to the median: a first guess from two short trials (an iteration costs a fixed part, the
  // timing's own, and a part per step), then corrected by trials at the guess until an iteration's
  // median is within 5% of the target (a slow spell during one trial would otherwise skew the size).
  timed(20_000, 100);
  const small = percentile(timed(20_000, 100), 0.5);
  const large = percentile(timed(20_000, 1100), 0.5);
  const perStep = Math.max(1e-3, (large - small) / 1000);
  const target = medianMicros * 1000;
  let steps = Math.max(1, Math.round(100 + (target - small) / perStep));
  for (let trial = 0; trial < 6; trial++) {
    const median = percentile(timed(20_000, steps), 0.5);
    if (Math.abs(median - target) <= 0.05 * target) break;
    steps = Math.max(1, Math.round(steps + (target - median) / perStep));
  }
  const sorted = timed(count, steps);
  let overGoal = 0;
  for (let i = sorted.length - 1; i >= 0 && (sorted[i] as number) > 20_000; i--) overGoal++;
  if (sink === -1) console.log(sink);
  return { p50: percentile(sorted, 0.5) / 1000, p99: percentile(sorted, 0.99) / 1000, p999: percentile(sorted, 0.999) / 1000, overGoal: overGoal / count };
}

function heapUsed(): number {
  return memoryUsed().heap;
}

/**
 * The V8 heap and the memory of array buffers as Node reports it, after GC. Typed arrays keep their
 * memory outside the heap; Node's figure leaves out resizable buffers (grown.ts gives a column one past
 * 1 MiB), so columns that large count in neither.
 */
function memoryUsed(): { heap: number; buffers: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

// BENCH_QUICK=1: every part once, small (the test of every benchmark, test/bench/quick.spec.ts).
const COMMANDS = setting('BENCH_COMMANDS', 300_000, 20_000);
const PEER = process.env['BENCH_PEER'] !== '0';
const WINDOW = process.env['BENCH_WINDOW'] !== '0';
// BENCH_RULES=0 leaves out the mixes with fees and limits (withRules), for A/B pairs of the rest.
const RULES_RUN = process.env['BENCH_RULES'] !== '0';
// For quick A/B runs on a noisy machine: BENCH_MIX=base skips the extensions mix, BENCH_MEMORY=0 the
// memory figures (and the extra setup they need).
const BASE_ONLY = process.env['BENCH_MIX'] === 'base';
const MEMORY = process.env['BENCH_MEMORY'] !== '0';

/** One size, in a process of its own so heap figures are not polluted by the previous size. */
async function measure(size: number): Promise<void> {
  // Memory: the state alone (a log that keeps nothing), then the same with the in-memory log.
  let stateBytes = Number.NaN;
  let stateBuffers = Number.NaN;
  if (MEMORY) {
    const before = memoryUsed();
    const alone = setup(size, 'state');
    const after = memoryUsed();
    stateBytes = (after.heap - before.heap) / alone.exchange.state.books.restingCount;
    stateBuffers = (after.buffers - before.buffers) / alone.exchange.state.books.restingCount;
  }
  const base = MEMORY ? memoryUsed() : null;
  let s: Setup | null = setup(size, 'memory');
  let withLogBytes = Number.NaN;
  let withLogBuffers = Number.NaN;
  if (base !== null) {
    const used = memoryUsed();
    withLogBytes = (used.heap - base.heap) / s.exchange.state.books.restingCount;
    withLogBuffers = (used.buffers - base.buffers) / s.exchange.state.books.restingCount;
  }
  // Warm up the JIT on a separate slice, then measure.
  await runEngine(s, workload(s, Math.min(50_000, COMMANDS), 99));
  const commands = workload(s, COMMANDS, size);
  const reference = runReference(COMMANDS);
  pageMicros = freshPageMicros();
  // The warm-up's garbage and the 300,000 command objects just built are the benchmark's, not the
  // engine's: collect them now, so that a major GC they trigger does not land inside the timed run.
  gc();
  const r = await runEngine(s, commands);
  const memory = MEMORY ? `heap per resting order: ${stateBytes.toFixed(0)} B state, ${withLogBytes.toFixed(0)} B with the in-memory log; heap + array buffers ${(stateBytes + stateBuffers).toFixed(0)} B, ${(withLogBytes + withLogBuffers).toFixed(0)} B` : '';
  report(size, 'base mix      ', r, reference, memory);
  if (PEER) peer(size, r.perSecond);
  if (WINDOW) {
    s = null;
    gc();
    const w = setup(size, 'window');
    await runEngine(w, workload(w, Math.min(50_000, COMMANDS), 99));
    const windowCommands = workload(w, COMMANDS, size);
    gc();
    const rw = await runEngine(w, windowCommands);
    console.log(
      `  the live state as the PostgreSQL server keeps it (the window of ${RECENT_ORDERS.toLocaleString('en-US')} finished orders, a log that keeps nothing), the same commands: ` +
        `${Math.round(rw.perSecond).toLocaleString('en-US')} a second (${Math.round(rw.perCpuSecond).toLocaleString('en-US')} per CPU second), p50 ${rw.p50.toFixed(2)} µs  p99 ${rw.p99.toFixed(2)} µs; ` +
        `window/in-memory ${(rw.perSecond / r.perSecond).toFixed(2)} (${(rw.perCpuSecond / r.perCpuSecond).toFixed(2)} per CPU second)`,
    );
  }
  const floor = machineTail(COMMANDS, r.p50);
  console.log(
    `  machine's tail: ${COMMANDS.toLocaleString('en-US')} iterations of fixed work sized to the run's median, timed as the commands are: p50 ${floor.p50.toFixed(2)} µs  p99 ${floor.p99.toFixed(2)} µs  p99.9 ${floor.p999.toFixed(2)} µs; ` +
      `${(100 * floor.overGoal).toFixed(3)}% over 20 µs (above 0.1%, the machine alone keeps this run's p99.9 over the goal)`,
  );
  s = null;
  gc();
  if (RULES_RUN) withRules(size, 'base');
  if (BASE_ONLY) return;
  // The extensions mix, on a fresh book of the same size (warmed up the same way).
  gc();
  const x = setup(size, 'memory');
  await runEngine(x, workload(x, Math.min(50_000, COMMANDS), 98, 'extensions'));
  const extensionCommands = workload(x, COMMANDS, size, 'extensions');
  gc();
  const rx = await runEngine(x, extensionCommands);
  report(size, 'extensions mix', rx, reference, `extensions/base ${(rx.perSecond / r.perSecond).toFixed(2)} | remembered client order ids ${x.exchange.state.books.clientIdCount.toLocaleString('en-US')}, ${clientIdBytes().toFixed(0)} B each`);
  if (RULES_RUN) withRules(size, 'extensions');
}

/**
 * Heap per remembered client order id: the same 100,000 resting orders submitted with and without one,
 * each in a fresh exchange (the id string and the index entry; the order's slot is the same either way).
 * The orders rest, so the books hold every one of them: finished orders leave the live state for the
 * history once the window of recently finished ones lets go of them, and their ids with them.
 */
function clientIdBytes(): number {
  const count = 100_000;
  const traders = 200;
  const fill = (withIds: boolean): number => {
    const base = heapUsed();
    const exchange = new Exchange({ deltaRing: 0, log: new DiscardingLog() });
    for (let t = 0; t < traders; t++) exchange.execute({ type: 'ProvisionTrader', time: nextTime(), username: `ids${t}`, trader_id: uuid(t + 1), api_key_hash: 'h' });
    exchange.execute({ type: 'UpsertMarket', time: nextTime(), market: { market_id: 'ID-USD', base_asset: 'ID', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: MID, enabled: true } });
    for (let i = 0; i < count; i++) {
      // Bids far below asks, one unit each: nothing crosses, and each trader's 250 a side stay inside the position limit.
      const buy = i % 2 === 0;
      exchange.execute({ type: 'SubmitOrder', time: nextTime(), trader_id: uuid((i % traders) + 1), market: 'ID-USD', side: buy ? 'BUY' : 'SELL', price: buy ? 1 + (i % 1000) : 10_000 + (i % 1000), quantity: 1, ...GTC_LIMIT, client_order_id: withIds ? `client-${i}` : null, order_id: uuid(2_000_000 + i), fill_id_seed: uuid(1) });
    }
    const bytes = heapUsed() - base;
    if (exchange.state.books.restingCount !== count || exchange.state.books.clientIdCount !== (withIds ? count : 0)) throw new Error('bench: the probe\'s orders do not all rest with their client order ids');
    return bytes;
  };
  const without = fill(false);
  const withIds = fill(true);
  return (withIds - without) / count;
}

function report(size: number, label: string, r: EngineRun, reference: number, tail: string): void {
  console.log(
    [
      `resting ${size.toLocaleString('en-US').padStart(9)} ${label}`,
      `${Math.round(r.perSecond).toLocaleString('en-US').padStart(9)} commands/s (${Math.round(r.perCpuSecond).toLocaleString('en-US')} per CPU second)`,
      `p50 ${r.p50.toFixed(2)} µs  p99 ${r.p99.toFixed(2)} µs  p99.9 ${r.p999.toFixed(2)} µs  max ${(r.max / 1000).toFixed(1)} ms  GC ${(100 * r.gcShare).toFixed(1)}%`,
      `kept ${r.keptPerCommand.toFixed(0)} B, fresh pages ${r.faultsPerCommand.toFixed(3)} per command (${((r.faultsPerCommand * pageMicros * r.perSecond) / 1e4).toFixed(0)}% of the run at ${pageMicros.toFixed(1)} µs a page)`,
      `reference ${Math.round(reference).toLocaleString('en-US')} ops/s (engine/reference ${(r.perSecond / reference).toFixed(3)})`,
      tail,
      `refused ${r.refused}`,
    ].join(' | '),
  );
  console.log(`  latency by kind: ${r.tail}`);
}

/**
 * The same commands given to nodejs-order-book in a process of its own (bench/engine/peer-order-book.ts),
 * right after this size's base mix: its rate, and the exchange's against it.
 */
function peer(size: number, perSecond: number): void {
  const script = new URL('./engine/peer-order-book.ts', import.meta.url).pathname;
  const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', script, String(size), String(COMMANDS)], { encoding: 'utf8', env: process.env });
  const rate = /([\d,]+) commands\/s/.exec(child.stdout ?? '');
  if (child.status !== 0 || rate === null) throw new Error(`bench: the peer failed (exit ${child.status}): ${child.stderr}`);
  const theirs = Number((rate[1] as string).replaceAll(',', ''));
  console.log(`  ${(child.stdout as string).trim()} (the same commands, its own process): the exchange is ${(perSecond / theirs).toFixed(2)}x its rate`);
}

const one = process.argv.indexOf('--one');
if (one >= 0) {
  await measure(Number(process.argv[one + 1]));
} else {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  console.log(`engine benchmark: node ${process.version}, ${COMMANDS} mixed commands per size (60% submit, ~10% of them crossing; 30% cancel; 10% amend)`);
  for (const size of sizes.length > 0 ? sizes : quick([1_000, 100_000, 1_000_000], [1_000])) {
    const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', new URL(import.meta.url).pathname, '--one', String(size)], { stdio: 'inherit', env: process.env });
    if (child.status !== 0) process.exit(child.status ?? 1);
  }
}
