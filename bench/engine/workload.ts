// The engine benchmark's workload, generated without an engine: the traders, the orders that fill the
// books before the run, and the timed mixes. Every command is a function of the seed and the size alone
// (ids, times and choices come from bench/command-strings.ts and a seeded PRNG), so a peer order book in
// a process of its own (bench/engine/peer-order-book.ts) generates exactly the same commands.
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { Command } from '../../src/commands/types.ts';
import { prng as rng } from '../../replay/prng.ts';
import { nextTime, uuid } from '../command-strings.ts';

export const MARKETS = 10;
export const MID = 100_000;

/** The session a workload is generated for: its traders and, per trader, the ids it has resting (may be stale). */
export interface Session {
  readonly traders: string[];
  readonly resting: string[][];
  nextId: number;
}

export type Mix = 'base' | 'extensions';

export function marketId(m: number): string {
  return `M${m}-USD`;
}

/** The traders for books of `resting` orders: each keeps at most ~400 resting per side per market, well inside the 1000 limit. */
export function session(resting: number): Session {
  const perTraderMarket = 400;
  const traderCount = Math.max(20, Math.ceil(resting / (MARKETS * perTraderMarket)) + 10);
  const traders = Array.from({ length: traderCount }, (_, i) => uuid(1_000_000_000 + i));
  return { traders, resting: traders.map(() => []), nextId: 1 };
}

/** The commands that make the traders and the markets. */
export function provisioning(s: Session): Command[] {
  const out: Command[] = s.traders.map((t, i) => ({ type: 'ProvisionTrader', time: nextTime(), username: `bench${i}`, trader_id: t, api_key_hash: `h${i}` }));
  for (let m = 0; m < MARKETS; m++) {
    out.push({ type: 'UpsertMarket', time: nextTime(), market: { market_id: marketId(m), base_asset: `M${m}`, quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: MID, enabled: true } });
  }
  return out;
}

/** `count` orders that rest: bids below the mid, asks above, over ~2,000 price levels per side: a deep, uncrossed book. */
export function* prefill(s: Session, count: number): Generator<Command> {
  const rand = rng(1);
  const traderCount = s.traders.length;
  for (let i = 0; i < count; i++) {
    const trader = i % traderCount;
    const buy = i % 2 === 0;
    const market = Math.floor(i / traderCount) % MARKETS;
    const offset = 1 + Math.floor(rand() * 2000);
    const id = uuid(s.nextId++);
    yield { type: 'SubmitOrder', time: nextTime(), trader_id: s.traders[trader] as string, market: marketId(market), side: buy ? 'BUY' : 'SELL', price: buy ? MID - offset : MID + offset, quantity: 2, ...GTC_LIMIT, order_id: id, fill_id_seed: uuid(9_000_000_000 + s.nextId) };
    (s.resting[trader] as string[]).push(id);
  }
}

const STP_MODES = ['CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'] as const;

/** The terms of an extensions-mix order: 20% IOC, 5% FOK, 10% post-only, 5% market, STP on half, client ids on half. */
function extensionTerms(rand: () => number, id: number): { order_type: 'LIMIT' | 'MARKET'; time_in_force: 'GTC' | 'IOC' | 'FOK' | 'POST_ONLY'; self_trade_prevention: 'NONE' | (typeof STP_MODES)[number]; client_order_id: string | null } {
  const r = rand();
  const order_type = r < 0.05 ? 'MARKET' : 'LIMIT';
  const time_in_force = r < 0.05 ? 'IOC' : r < 0.25 ? 'IOC' : r < 0.3 ? 'FOK' : r < 0.4 ? 'POST_ONLY' : 'GTC';
  const self_trade_prevention = rand() < 0.5 ? 'NONE' : (STP_MODES[Math.floor(rand() * 3)] as (typeof STP_MODES)[number]);
  return { order_type, time_in_force, self_trade_prevention, client_order_id: rand() < 0.5 ? `c${id}` : null };
}

/**
 * The timed commands, pre-built so the timed loop measures only the engine: the base mix (60% submit,
 * one in ten crossing the spread; 30% cancel; 10% amend) or the extensions mix (the same with the
 * order types of trading-extensions.md and a cancel-all every 1,000 commands).
 */
export function workload(s: Session, count: number, seed: number, mix: Mix = 'base'): Command[] {
  const rand = rng(seed);
  const out: Command[] = [];
  for (let i = 0; i < count; i++) {
    if (mix === 'extensions' && i % 1000 === 999) {
      // A cancel-all every 1,000 commands, of a random trader's orders in one market.
      const t = Math.floor(rand() * s.traders.length);
      out.push({ type: 'CancelAllOrders', time: nextTime(), trader_id: s.traders[t] as string, market: marketId(Math.floor(rand() * MARKETS)), reason: 'request' });
      continue;
    }
    const t = Math.floor(rand() * s.traders.length);
    const trader = s.traders[t] as string;
    const mine = s.resting[t] as string[];
    const r = rand();
    if (r < 0.6 || mine.length === 0) {
      const buy = rand() < 0.5;
      const market = marketId(Math.floor(rand() * MARKETS));
      // One submit in ten crosses the spread and trades; the rest rest near the top of the book.
      const crossing = rand() < 0.1;
      const offset = 1 + Math.floor(rand() * 50);
      const price = crossing ? (buy ? MID + 5 : MID - 5) : buy ? MID - offset : MID + offset;
      const n = s.nextId++;
      const id = uuid(n);
      const terms = mix === 'extensions' ? extensionTerms(rand, n) : GTC_LIMIT;
      const atMarket = terms.order_type === 'MARKET';
      out.push({ type: 'SubmitOrder', time: nextTime(), trader_id: trader, market, side: buy ? 'BUY' : 'SELL', price: atMarket ? null : price, quantity: 1 + Math.floor(rand() * 3), ...terms, order_id: id, fill_id_seed: uuid(9_000_000_000 + s.nextId) });
      if (!crossing && (terms.time_in_force === 'GTC' || terms.time_in_force === 'POST_ONLY') && !atMarket) mine.push(id);
    } else {
      // Cancel or amend a random own order (it may have traded away meanwhile: then it is refused).
      const k = Math.floor(rand() * mine.length);
      const id = mine[k] as string;
      if (r < 0.9) {
        mine[k] = mine[mine.length - 1] as string;
        mine.pop();
        out.push({ type: 'CancelOrder', time: nextTime(), trader_id: trader, order_id: id });
      } else {
        out.push({ type: 'AmendOrder', time: nextTime(), trader_id: trader, order_id: id, remaining: 1 });
      }
    }
  }
  return out;
}
