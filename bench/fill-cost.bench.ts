// What a fill costs the engine (`npm run bench:fill-cost`): a taker that trades against K resting
// orders, K = 1, 2, 4, 8, each placed just before it (so they are hot in cache: the cost of the work,
// not of cold memory; bench:engine's latency by kind has the cold case), with the in-memory log, every
// projection and a listener on every feed, as bench:engine. The reference, measured in the same run, is
// the makers' own submissions: an order that rests. Prints the taker's time per K (medians of three
// rounds), the time a fill adds (the slope over K), and that against a resting order's cost.
//
//   npm run bench:fill-cost
//   BENCH_CYCLES=50000 npm run bench:fill-cost
//   BENCH_QUICK=1 npm run bench:fill-cost   (3,000 takers per K and a short warm-up: a check that it runs, bench/quick.ts)
import { GTC_LIMIT } from '../src/commands/order-terms.ts';
import { Exchange } from '../src/commands/exchange.ts';
import type { Command } from '../src/commands/types.ts';
import { nextTime, uuid } from './command-strings.ts';
import { quick, setting } from './quick.ts';

const CYCLES = setting('BENCH_CYCLES', 100_000, 3_000);
const MARKETS = 10;
const MID = 100_000;

interface Run {
  readonly restMicros: number;
  readonly takerMicros: number;
}

function run(k: number, cycles: number): Run {
  const exchange = new Exchange({ deltaRing: 1024 });
  exchange.state.events$.subscribe(() => {});
  exchange.state.marketData.deltas$.subscribe(() => {});
  exchange.state.privateFeed.events$.subscribe(() => {});
  const traders = Array.from({ length: 20 }, (_, i) => uuid(1_000_000_000 + i));
  traders.forEach((t, i) => exchange.execute({ type: 'ProvisionTrader', time: nextTime(), username: `fill${i}`, trader_id: t, api_key_hash: `h${i}` }));
  for (let m = 0; m < MARKETS; m++) {
    exchange.execute({ type: 'UpsertMarket', time: nextTime(), market: { market_id: `M${m}-USD`, base_asset: `M${m}`, quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: MID, enabled: true } });
  }
  let id = 1;
  // A book of 1,000 resting orders away from the mid, as bench:engine's smallest size.
  for (let i = 0; i < 1000; i++) {
    const buy = i % 2 === 0;
    exchange.execute({ type: 'SubmitOrder', time: nextTime(), trader_id: traders[i % 20] as string, market: `M${i % MARKETS}-USD`, side: buy ? 'BUY' : 'SELL', price: buy ? MID - 1000 - (i % 500) : MID + 1000 + (i % 500), quantity: 2, ...GTC_LIMIT, order_id: uuid(id++), fill_id_seed: uuid(9e9 + id) });
  }
  // Per cycle: k makers of one unit at k prices on one side (19 traders in turn), then the 20th trader's
  // taker for k units across them. Cycles alternate sides in pairs on the same market and makers, so
  // every position returns to flat (well inside the position limit).
  const commands: Command[] = [];
  const taker: boolean[] = [];
  for (let c = 0; c < cycles; c++) {
    const market = `M${(c >> 1) % MARKETS}-USD`;
    const up = c % 2 === 0;
    const base = c & ~1;
    for (let j = 0; j < k; j++) {
      commands.push({ type: 'SubmitOrder', time: nextTime(), trader_id: traders[(base + j) % 19] as string, market, side: up ? 'SELL' : 'BUY', price: up ? MID + j : MID - j, quantity: 1, ...GTC_LIMIT, order_id: uuid(id++), fill_id_seed: uuid(9e9 + id) });
      taker.push(false);
    }
    commands.push({ type: 'SubmitOrder', time: nextTime(), trader_id: traders[19] as string, market, side: up ? 'BUY' : 'SELL', price: up ? MID + k : MID - k, quantity: k, ...GTC_LIMIT, order_id: uuid(id++), fill_id_seed: uuid(9e9 + id) });
    taker.push(true);
  }
  let restNs = 0n;
  let takerNs = 0n;
  for (let i = 0; i < commands.length; i++) {
    const start = process.hrtime.bigint();
    const event = exchange.execute(commands[i] as Command);
    const ns = process.hrtime.bigint() - start;
    if (taker[i] === true) {
      if (event.type !== 'OrderSubmitted' || event.data.fills.length !== k) throw new Error(`the taker of cycle ${i} made ${event.type === 'OrderSubmitted' ? event.data.fills.length : 0} fills, not ${k}`);
      takerNs += ns;
    } else restNs += ns;
  }
  return { restMicros: Number(restNs) / (cycles * k) / 1000, takerMicros: Number(takerNs) / cycles / 1000 };
}

const ROUNDS = 3;
const KS = [1, 2, 4, 8];
console.log(`fill cost: node ${process.version}, ${CYCLES.toLocaleString('en-US')} takers per K in ${ROUNDS} rounds (each K once a round, after a warm-up), each taker after its K makers`);
run(2, quick(10_000, 1_000)); // warm-up: the compiler's first tiers, not measured
const rounds = new Map<number, Run[]>(KS.map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) for (const k of KS) rounds.get(k)?.push(run(k, Math.ceil(CYCLES / ROUNDS)));
const median = (values: number[]): number => {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1] as number;
};
const taker = new Map<number, number>();
const rests: number[] = [];
for (const k of KS) {
  const runs = rounds.get(k) as Run[];
  const t = median(runs.map((x) => x.takerMicros));
  const rest = median(runs.map((x) => x.restMicros));
  taker.set(k, t);
  rests.push(...runs.map((x) => x.restMicros));
  console.log(`K=${k}: a maker that rests ${rest.toFixed(2)} µs; the taker with ${k} fill${k === 1 ? '' : 's'} ${t.toFixed(2)} µs (medians of ${ROUNDS})`);
}
// The least-squares slope of the taker's time over K: what one more fill adds, whatever the submission's own cost.
const meanK = KS.reduce((a, k) => a + k, 0) / KS.length;
const meanT = KS.reduce((a, k) => a + (taker.get(k) as number), 0) / KS.length;
const perFill = KS.reduce((a, k) => a + (k - meanK) * ((taker.get(k) as number) - meanT), 0) / KS.reduce((a, k) => a + (k - meanK) ** 2, 0);
const rest = median(rests);
console.log(`a fill adds ${perFill.toFixed(2)} µs to its taker (slope over K); an order that rests ${rest.toFixed(2)} µs (the reference, same run); fill/rest ${(perFill / rest).toFixed(2)}`);
