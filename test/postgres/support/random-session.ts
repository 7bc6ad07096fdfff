// Random trading sessions for the persistence tests: a seeded mix of every kind of command (orders,
// amends, cancels, market administration, settlement, resets, operator messages, some with text that
// COPY and jsonb must carry exactly), built as the service builds commands, from an admission stamp.
import { GTC_LIMIT } from '../../../src/commands/order-terms.ts';
import { createHash } from 'node:crypto';
import { isDomainError } from '../../../src/commands/errors.ts';
import type { Command, MarketInput } from '../../../src/commands/types.ts';
import type { ExchangeEvent } from '../../../src/events/types.ts';
import type { ExchangeState } from '../../../src/projections/exchange-state.ts';
import type { Stamp } from '../../../src/server/clock.ts';
import type { ExchangeService } from '../../../src/server/service.ts';
import { prng } from '../../../replay/prng.ts';

export type Build = (stamp: Stamp) => Command;

// One market as before, one with fees and a maker rebate, one with a position limit and a cap on open
// orders (competition-rules.md): the log, the history and the snapshots carry all of them.
export const SESSION_MARKETS: readonly MarketInput[] = [
  { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true },
  { market_id: 'ETH-USD', base_asset: 'ETH', quote_asset: 'USD', tick_size: 5, min_order_quantity: 1, reference_price: 200, enabled: true, maker_fee_bps: -1, taker_fee_bps: 3 },
  { market_id: 'SOL-USD', base_asset: 'SOL', quote_asset: 'USD', tick_size: 1, min_order_quantity: 2, reference_price: null, enabled: true, position_limit: 400, max_open_orders: 25 },
];

// Text that must survive COPY's escaping and jsonb: tabs, newlines, backslashes, quotes, non-ASCII,
// and (kept exactly only through data_exact) a NUL and a lone surrogate.
const BODIES = ['plain', 'tab\there', 'line\nbreak\r\n', 'back\\slash \\N \\t', 'quote " and \'', 'ünïcødé ✓ 🚀', 'nul\u0000inside', 'lone \ud800 surrogate'];

export class RandomSession {
  private readonly rand: () => number;
  private readonly state: ExchangeState;
  readonly traders: string[] = [];
  /** Each provisioned trader's API key (a REST or WS client can act as them). */
  readonly apiKeys = new Map<string, string>();
  private readonly usernames: string[] = [];
  private setupDone = false;
  private n = 0;

  constructor(state: ExchangeState, seed: number, traders = 12) {
    this.state = state;
    this.rand = prng(seed);
    for (let i = 0; i < traders; i++) this.usernames.push(`trader_${seed}_${i}`);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)] as T;
  }

  /** The setup commands (markets, traders, trading on), then random ones forever. */
  *builds(): Generator<Build> {
    if (!this.setupDone) {
      this.setupDone = true;
      yield (s) => ({ type: 'LoadConfig', time: s.time, trading_enabled: true, markets: SESSION_MARKETS });
      for (const username of this.usernames) {
        yield (s) => {
          const trader_id = s.uuid();
          this.traders.push(trader_id);
          const apiKey = `exch_${createHash('sha256').update(trader_id).digest('hex').slice(0, 32)}`;
          this.apiKeys.set(trader_id, apiKey);
          return { type: 'ProvisionTrader', time: s.time, username, trader_id, api_key_hash: createHash('sha256').update(apiKey).digest('hex') };
        };
      }
    }
    for (;;) yield this.next();
  }

  private next(): Build {
    this.n++;
    const r = this.rand();
    const trader = this.pick(this.traders);
    const m = this.pick(SESSION_MARKETS);
    if (r < 0.7) {
      const side = this.rand() < 0.5 ? 'BUY' : 'SELL';
      const ref = m.reference_price ?? 50;
      const offset = Math.floor(this.rand() * 11) - 5 + (side === 'BUY' ? -1 : 1);
      const price = Math.max(m.tick_size, ref + offset * m.tick_size);
      const quantity = m.min_order_quantity + Math.floor(this.rand() * 30);
      return (s) => ({ type: 'SubmitOrder', time: s.time, trader_id: trader, market: m.market_id, side, price, quantity, ...GTC_LIMIT, order_id: s.uuid(), fill_id_seed: s.uuid() });
    }
    if (r < 0.88) {
      const cancel = r < 0.8;
      const pickAt = this.rand();
      const fraction = this.rand();
      return (s) => {
        const open = this.state.books.openOrders(trader);
        const order = open[Math.floor(pickAt * open.length)];
        const order_id = order?.id ?? s.uuid();
        if (cancel) return { type: 'CancelOrder', time: s.time, trader_id: trader, order_id };
        return { type: 'AmendOrder', time: s.time, trader_id: trader, order_id, remaining: Math.max(1, Math.floor((order?.remaining ?? 1) * fraction)) };
      };
    }
    if (r < 0.92) {
      const body = this.pick(BODIES);
      const target = this.rand() < 0.3 ? this.pick(this.usernames) : null;
      const inMarket = this.rand() < 0.5;
      const titled = this.rand() < 0.5;
      // Every ninth such command is about a key instead: one issued to a trader, or one of its issued
      // keys revoked (never its primary key, which the session's clients act with), its hash only.
      if (this.n % 9 === 0) {
        return (s) => {
          const issued = this.state.keys.keysOf(trader).filter((k) => !k.primary);
          const revoke = issued.length > 1 ? issued[this.n % issued.length] : undefined;
          if (revoke !== undefined) return { type: 'RevokeApiKey', time: s.time, trader_id: trader, key_id: revoke.key_id };
          return { type: 'IssueApiKey', time: s.time, trader_id: trader, api_key_hash: createHash('sha256').update(s.uuid()).digest('hex'), scope: titled ? 'read' : 'trade', label: `key ${this.n}`, expires_at: null };
        };
      }
      return (s) => ({ type: 'PostAdminMessage', time: s.time, message_id: s.uuid(), target_username: target, market: inMarket ? m.market_id : null, level: 'info', title: titled ? `title ${this.n}` : null, body });
    }
    if (r < 0.95) {
      const enabled = this.rand() < 0.7;
      // Now and then a rule changes mid-session: it applies from the next fill on.
      const rules = this.n % 4 === 0 ? { taker_fee_bps: this.n % 7, maker_fee_bps: (this.n % 5) - 2 } : {};
      return (s) => ({ type: 'PatchMarket', time: s.time, market_id: m.market_id, changes: { enabled, display_name: `${m.market_id} #${this.n}`, ...rules } });
    }
    if (r < 0.97) {
      const stop = this.rand() < 0.5;
      return (s) => (stop && this.state.markets.controls.trading_enabled ? { type: 'StopTrading', time: s.time } : { type: 'StartTrading', time: s.time });
    }
    if (r < 0.985) {
      // A round ends: settle, delete, and create the instrument afresh (three commands over three calls).
      const phase = this.n % 3;
      const price = 50 + Math.floor(this.rand() * 100);
      if (phase === 0) return (s) => ({ type: 'SettleMarket', time: s.time, market_id: m.market_id, settlement_price: price, announcement: this.rand() < 0.5 ? null : 'round over', message_id: s.uuid() });
      if (phase === 1) return (s) => ({ type: 'DeleteMarket', time: s.time, market_id: m.market_id });
      return (s) => ({ type: 'UpsertMarket', time: s.time, market: m });
    }
    if (r < 0.9865) return (s) => ({ type: 'ResetTrading', time: s.time });
    // Make sure a deleted or settled market comes back, so the session keeps trading.
    return (s) => {
      const current = this.state.markets.get(m.market_id);
      if (current === undefined || current.status === 'settled') return current === undefined ? { type: 'UpsertMarket', time: s.time, market: m } : { type: 'DeleteMarket', time: s.time, market_id: m.market_id };
      return { type: 'StartTrading', time: s.time };
    };
  }
}

/** Runs count commands through the service, one after another; refusals are normal and counted. */
export async function runSession(service: ExchangeService, session: RandomSession, count: number): Promise<{ accepted: number; refused: number; events: ExchangeEvent[] }> {
  let accepted = 0;
  let refused = 0;
  const events: ExchangeEvent[] = [];
  const builds = session.builds();
  for (let i = 0; i < count; i++) {
    const build = builds.next().value as Build;
    try {
      events.push(await service.execute(build));
      accepted++;
    } catch (err) {
      if (!isDomainError(err)) throw err;
      refused++;
    }
  }
  return { accepted, refused, events };
}

/** Fires count commands without waiting for each (as many clients would); resolves when all have answered. */
export async function runConcurrently(service: ExchangeService, session: RandomSession, count: number): Promise<{ accepted: number; refused: number; events: ExchangeEvent[] }> {
  const builds = session.builds();
  const results = await Promise.allSettled(Array.from({ length: count }, () => service.execute(builds.next().value as Build)));
  const events: ExchangeEvent[] = [];
  let refused = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') events.push(r.value);
    else if (isDomainError(r.reason)) refused++;
    else throw r.reason;
  }
  return { accepted: events.length, refused, events };
}
