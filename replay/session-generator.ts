// Generates realistic competition sessions through the real engine: traders, markets, resting and
// crossing orders, amends, cancels, operator messages, a market disabled and re-enabled, settlement,
// delete and re-create, and optionally a reset between rounds. Seeded, with stamps from counters, so
// the same seed always gives the same log. Used for the recorded fixtures and the replay benchmark.
import { GTC_LIMIT } from '../src/commands/order-terms.ts';
import { isDomainError } from '../src/commands/errors.ts';
import { DuplicateSubmission } from '../src/commands/duplicate-submission.ts';
import { Exchange } from '../src/commands/exchange.ts';
import type { Command, CommandBody } from '../src/commands/types.ts';
import { formatMicros } from '../src/server/clock.ts';
import { prng } from './prng.ts';

export interface SessionOptions {
  readonly seed: number;
  readonly commands: number;
  readonly traders?: number;
  readonly markets?: string[];
  /** Reset all traders when this many commands have run. */
  readonly resetAt?: number;
  /** Settle (then delete and re-create) the first market when this many commands have run. */
  readonly settleAt?: number;
  /** Stop early once the log holds this many events. */
  readonly maxEvents?: number;
  /**
   * Also use trading-extensions.md: market, IOC, FOK and post-only orders, self-trade prevention,
   * client order ids (with repeats) and cancel-all. Off, the session draws exactly the numbers it always
   * did, so older sessions come out the same.
   */
  readonly extensions?: boolean;
}

function uuid(prefix: number, n: number): string {
  return `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export class SessionGenerator {
  readonly exchange: Exchange;
  private readonly rand: () => number;
  private micros = Date.UTC(2026, 10, 1, 9, 0, 0) * 1000;
  private ids = 0;
  private readonly traders: string[];
  private readonly markets: string[];
  readonly options: SessionOptions;

  constructor(options: SessionOptions, exchange = new Exchange()) {
    this.options = options;
    this.exchange = exchange;
    this.rand = prng(options.seed);
    this.traders = Array.from({ length: options.traders ?? 8 }, (_, i) => uuid(0xa0000000 + options.seed, i + 1));
    this.markets = options.markets ?? ['BTC-USD', 'ETH-USD', 'SOL-USD'];
  }

  private run(body: CommandBody): void {
    this.micros += 1 + Math.floor(this.rand() * 5000);
    try {
      this.exchange.execute({ ...body, time: formatMicros(this.micros) } as Command);
    } catch (err) {
      // Refusals, and repeated client order ids, are part of a realistic session and append nothing.
      if (!isDomainError(err) && !(err instanceof DuplicateSubmission)) throw err;
    }
  }

  private nextId(): string {
    return uuid(0xb0000000 + this.options.seed, ++this.ids);
  }

  private createMarket(id: string, i: number): void {
    const [base = '', quote = ''] = id.split('-');
    this.run({ type: 'UpsertMarket', market: { market_id: id, base_asset: base, quote_asset: quote, tick_size: 5, min_order_quantity: 1, reference_price: 1000 * (i + 1), enabled: true, display_name: `${base} / ${quote}` } });
  }

  generate(): Exchange {
    const o = this.options;
    this.traders.forEach((id, i) => this.run({ type: 'ProvisionTrader', username: `trader-${String(i + 1).padStart(2, '0')}`, trader_id: id, api_key_hash: `${'0'.repeat(56)}${i.toString(16).padStart(8, '0')}` }));
    this.markets.forEach((m, i) => this.createMarket(m, i));
    this.run({ type: 'PostAdminMessage', message_id: this.nextId(), target_username: null, market: null, level: 'info', title: 'Welcome', body: 'The competition is open.' });
    for (let n = 0; n < o.commands && this.exchange.seq < (o.maxEvents ?? Infinity); n++) {
      if (o.resetAt === n) this.run({ type: 'ResetTrading' });
      if (o.settleAt === n) this.settleAndRecreate(0);
      this.step();
    }
    return this.exchange;
  }

  private settleAndRecreate(i: number): void {
    const id = this.markets[i] as string;
    const book = this.exchange.state.books.book(id);
    const mid = book?.bestBid ?? 1000 * (i + 1);
    this.run({ type: 'SettleMarket', market_id: id, settlement_price: mid - (mid % 5) || 5, announcement: null, message_id: this.nextId() });
    this.run({ type: 'DeleteMarket', market_id: id });
    this.createMarket(id, i);
  }

  /** Order terms drawn for an extensions session; a market order drops its price. */
  private terms(): { order_type: 'LIMIT' | 'MARKET'; time_in_force: 'GTC' | 'IOC' | 'FOK' | 'POST_ONLY'; self_trade_prevention: 'NONE' | 'CANCEL_TAKER' | 'CANCEL_MAKER' | 'CANCEL_BOTH'; client_order_id: string | null; price?: null } {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(this.rand() * xs.length)] as T;
    const market = this.rand() < 0.06;
    const cid = this.rand() < 0.4 ? `cid-${Math.floor(this.rand() * 200)}` : null;
    return {
      order_type: market ? 'MARKET' : 'LIMIT',
      time_in_force: market ? 'IOC' : pick(['GTC', 'GTC', 'GTC', 'IOC', 'FOK', 'POST_ONLY'] as const),
      self_trade_prevention: pick(['NONE', 'NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'] as const),
      client_order_id: cid,
      ...(market ? { price: null } : {}),
    };
  }

  private step(): void {
    const o = this.options;
    const r = this.rand();
    const t = Math.floor(this.rand() * this.traders.length);
    const trader = this.traders[t] as string;
    const state = this.exchange.state;
    if (r < 0.62) {
      const mi = Math.floor(this.rand() * this.markets.length);
      const market = this.markets[mi] as string;
      const ref = 1000 * (mi + 1);
      const buy = this.rand() < 0.5;
      // Mostly near the touch; one in eight crosses deep into the other side.
      const aggressive = this.rand() < 0.125;
      const offset = 5 * Math.floor(this.rand() * 8) * (aggressive ? -1 : 1) + 5;
      const price = buy ? ref - offset : ref + offset;
      const quantity = 1 + Math.floor(this.rand() * 25);
      this.run({ type: 'SubmitOrder', trader_id: trader, market, side: buy ? 'BUY' : 'SELL', price, quantity, ...(o.extensions === true ? this.terms() : GTC_LIMIT), order_id: this.nextId(), fill_id_seed: this.nextId() } as CommandBody);
    } else if (o.extensions === true && r < 0.64) {
      this.run({ type: 'CancelAllOrders', trader_id: trader, market: this.rand() < 0.5 ? null : (this.markets[Math.floor(this.rand() * this.markets.length)] as string), reason: this.rand() < 0.3 ? 'disconnect' : 'request' });
    } else if (r < 0.95) {
      const open = state.books.openOrders(trader);
      const order = open[Math.floor(this.rand() * open.length)];
      if (order === undefined) return;
      if (r < 0.85) this.run({ type: 'CancelOrder', trader_id: trader, order_id: order.id });
      else this.run({ type: 'AmendOrder', trader_id: trader, order_id: order.id, remaining: Math.max(1, Math.floor(order.remaining / 2)) });
    } else if (r < 0.97) {
      const market = this.markets[Math.floor(this.rand() * this.markets.length)] as string;
      this.run({ type: 'PatchMarket', market_id: market, changes: { enabled: this.rand() < 0.6 } });
    } else if (r < 0.985) {
      const target = this.rand() < 0.5 ? null : `trader-${String(t + 1).padStart(2, '0')}`;
      this.run({ type: 'PostAdminMessage', message_id: this.nextId(), target_username: target, market: null, level: this.rand() < 0.8 ? 'info' : 'warning', title: null, body: `notice ${this.ids}` });
    } else {
      this.run(this.rand() < 0.5 ? { type: 'StopTrading' } : { type: 'StartTrading' });
    }
  }
}
