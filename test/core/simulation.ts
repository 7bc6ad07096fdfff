// A deterministic driver for long random sessions: actions (from fast-check or a seeded generator)
// become stamped commands with ids and times from counters, so the same actions give the same
// commands, and the checks run after every step.
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import { expect } from 'chai';
import fc from 'fast-check';
import { isDomainError } from '../../src/commands/errors.ts';
import { DuplicateSubmission } from '../../src/commands/duplicate-submission.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import type { Command, CommandBody, MarketPatchInput } from '../../src/commands/types.ts';
import type { ExchangeEvent, OrderType, ScheduledAction, SelfTradePrevention, TimeInForce } from '../../src/events/types.ts';
import type { ExchangeState } from '../../src/projections/exchange-state.ts';
import { HistoryIndex } from '../../src/projections/history/history-index.ts';
import { at } from './dsl.ts';

export const MARKETS = ['AAA-USD', 'BBB-USD', 'CCC-USD'];
export const TRADERS = ['t0', 't1', 't2', 't3', 't4'].map((t, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

export type Action =
  | {
      kind: 'submit';
      trader: number;
      market: number;
      buy: boolean;
      price: number;
      quantity: number;
      type: OrderType;
      tif: TimeInForce;
      stp: SelfTradePrevention;
      /** A small id space, so repeats (duplicates and conflicts) happen. */
      cid: number | null;
    }
  | { kind: 'cancelAll'; trader: number; market: number | null }
  | { kind: 'cancel'; trader: number; pick: number }
  | { kind: 'amend'; trader: number; pick: number; fraction: number }
  | { kind: 'settle'; market: number; price: number }
  | { kind: 'toggle'; market: number; enabled: boolean }
  | { kind: 'trading'; enabled: boolean }
  | { kind: 'reset' }
  // Operator commands (running a competition).
  | { kind: 'disable'; trader: number; enabled: boolean }
  | { kind: 'rotate'; trader: number }
  | { kind: 'freeze'; label: number }
  | { kind: 'schedule'; entries: { after: number; action: number; market: number }[] }
  // Competition rules: a market's rules patched (each one or left as it is), a key issued or revoked.
  | { kind: 'rules'; market: number; maker: number | null; taker: number | null; limit: number | null; cap: number | null | undefined }
  | { kind: 'key'; trader: number; revoke: boolean; pick: number; read: boolean };

export const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 60,
    arbitrary: fc.record({
      kind: fc.constant('submit' as const),
      trader: fc.nat(TRADERS.length - 1),
      market: fc.nat(MARKETS.length - 1),
      buy: fc.boolean(),
      price: fc.integer({ min: 90, max: 110 }),
      quantity: fc.integer({ min: 1, max: 400 }),
      type: fc.constantFrom<OrderType>('LIMIT', 'LIMIT', 'LIMIT', 'LIMIT', 'MARKET'),
      tif: fc.constantFrom<TimeInForce>('GTC', 'GTC', 'GTC', 'IOC', 'FOK', 'POST_ONLY'),
      stp: fc.constantFrom<SelfTradePrevention>('NONE', 'NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'),
      cid: fc.option(fc.nat(20), { freq: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const), trader: fc.nat(TRADERS.length - 1), market: fc.option(fc.nat(MARKETS.length - 1), { freq: 2 }) }) },
  { weight: 25, arbitrary: fc.record({ kind: fc.constant('cancel' as const), trader: fc.nat(TRADERS.length - 1), pick: fc.nat() }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('amend' as const), trader: fc.nat(TRADERS.length - 1), pick: fc.nat(), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('settle' as const), market: fc.nat(MARKETS.length - 1), price: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('toggle' as const), market: fc.nat(MARKETS.length - 1), enabled: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trading' as const), enabled: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('disable' as const), trader: fc.nat(TRADERS.length - 1), enabled: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rotate' as const), trader: fc.nat(TRADERS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('freeze' as const), label: fc.nat(5) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('rules' as const),
      market: fc.nat(MARKETS.length - 1),
      maker: fc.option(fc.constantFrom(-100, -5, -1, 0, 2, 30, 100)),
      taker: fc.option(fc.constantFrom(0, 1, 5, 25, 100)),
      // Limits small enough to bind in a session of orders of up to 400.
      limit: fc.option(fc.constantFrom(50, 300, 1000, 2500)),
      // undefined: the cap as it is; null: lifted.
      cap: fc.option(fc.option(fc.integer({ min: 1, max: 3 })), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('key' as const), trader: fc.nat(TRADERS.length - 1), revoke: fc.boolean(), pick: fc.nat(), read: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('schedule' as const),
      entries: fc.array(fc.record({ after: fc.integer({ min: 1, max: 30 }), action: fc.nat(4), market: fc.nat(MARKETS.length - 1) }), { maxLength: 4 }),
    }),
  },
);

const SCHEDULED: readonly ((market: string) => ScheduledAction)[] = [
  () => ({ action: 'start_trading' }),
  () => ({ action: 'stop_trading' }),
  (market) => ({ action: 'enable_market', market_id: market }),
  (market) => ({ action: 'disable_market', market_id: market }),
  (market) => ({ action: 'post_message', level: 'info', body: `about ${market}`, title: null, market, target_username: null }),
];

/** Where an action's commands take their new ids from. */
export interface ActionIds {
  id(): string;
  /** A submission's fill id seed, apart from every other id (fill ids count up from it). */
  fillSeed(): string;
  n(): number;
}

/**
 * The commands an action stands for, built against the state as it is (which open order a cancel
 * names); a settlement is three (settle, delete, create the instrument afresh). Not for 'schedule',
 * which needs the clock (Simulation.step).
 */
export function actionCommands(a: Exclude<Action, { kind: 'schedule' }>, state: ExchangeState, ids: ActionIds): CommandBody[] {
  switch (a.kind) {
    case 'submit': {
      const market = a.type === 'MARKET';
      return [
        {
          type: 'SubmitOrder',
          trader_id: TRADERS[a.trader] as string,
          market: MARKETS[a.market] as string,
          side: a.buy ? 'BUY' : 'SELL',
          price: market ? null : a.price,
          quantity: a.quantity,
          ...GTC_LIMIT,
          order_type: a.type,
          time_in_force: market ? 'IOC' : a.tif,
          self_trade_prevention: a.stp,
          client_order_id: a.cid === null ? null : `c${a.cid}`,
          order_id: ids.id(),
          fill_id_seed: ids.fillSeed(),
        },
      ];
    }
    case 'cancelAll':
      return [{ type: 'CancelAllOrders', trader_id: TRADERS[a.trader] as string, market: a.market === null ? null : (MARKETS[a.market] as string), reason: 'request' }];
    case 'cancel':
    case 'amend': {
      const trader = TRADERS[a.trader] as string;
      const open = state.books.openOrders(trader);
      const order = open[a.pick % Math.max(1, open.length)];
      const orderId = order?.id ?? uuid(999_999);
      if (a.kind === 'cancel') return [{ type: 'CancelOrder', trader_id: trader, order_id: orderId }];
      return [{ type: 'AmendOrder', trader_id: trader, order_id: orderId, remaining: Math.max(1, Math.round((order?.remaining ?? 1) * a.fraction)) }];
    }
    case 'settle': {
      const id = MARKETS[a.market] as string;
      // A new round of the same instrument: settle, delete the settled market, create it afresh.
      return [{ type: 'SettleMarket', market_id: id, settlement_price: a.price, announcement: null, message_id: ids.id() }, { type: 'DeleteMarket', market_id: id }, marketCommand(id)];
    }
    case 'toggle':
      return [{ type: 'PatchMarket', market_id: MARKETS[a.market] as string, changes: { enabled: a.enabled } }];
    case 'trading':
      return [a.enabled ? { type: 'StartTrading' } : { type: 'StopTrading' }];
    case 'reset':
      return [{ type: 'ResetTrading' }];
    case 'disable': {
      const trader = TRADERS[a.trader] as string;
      return [a.enabled ? { type: 'EnableTrader', trader_id: trader } : { type: 'DisableTrader', trader_id: trader }];
    }
    case 'rotate':
      return [{ type: 'RotateApiKey', trader_id: TRADERS[a.trader] as string, api_key_hash: `k${ids.n()}` }];
    case 'freeze':
      return [{ type: 'FreezeLeaderboard', label: `round ${a.label}`, as_of_seq: state.seq, head_hash: '0'.repeat(64) }];
    case 'rules': {
      const changes: { -readonly [K in keyof MarketPatchInput]: MarketPatchInput[K] } = {};
      if (a.maker !== null) changes.maker_fee_bps = a.maker;
      if (a.taker !== null) changes.taker_fee_bps = a.taker;
      if (a.limit !== null) changes.position_limit = a.limit;
      if (a.cap !== undefined) changes.max_open_orders = a.cap;
      return [{ type: 'PatchMarket', market_id: MARKETS[a.market] as string, changes }];
    }
    case 'key': {
      const trader = TRADERS[a.trader] as string;
      const keys = state.keys.keysOf(trader);
      const key = keys[a.pick % Math.max(1, keys.length)];
      if (a.revoke && key !== undefined) return [{ type: 'RevokeApiKey', trader_id: trader, key_id: key.key_id }];
      return [{ type: 'IssueApiKey', trader_id: trader, api_key_hash: `key${ids.n()}`, scope: a.read ? 'read' : 'trade', label: a.read ? 'notebook' : null, expires_at: null }];
    }
  }
}

/** A market of the session, created (or created afresh) as every session creates it. */
export function marketCommand(id: string): CommandBody {
  const [base = '', quote = ''] = id.split('-');
  return { type: 'UpsertMarket', market: { market_id: id, base_asset: base, quote_asset: quote, tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } };
}

function uuid(n: number): string {
  return `aaaaaaaa-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export interface SimulationOptions {
  /** The books' window of finished orders (ExchangeStateOptions.recentOrders). */
  readonly recentOrders?: number;
  /**
   * Look a submission's client order id up in the whole history when the books do not hold it, and
   * stamp the earlier order into the command, as the server does at admission.
   */
  readonly lookUpHistory?: boolean;
}

export class Simulation {
  readonly exchange: Exchange;
  readonly commands: Command[] = [];
  /** How many commands each refusal code answered. */
  readonly refusals = new Map<string, number>();
  /** The whole history, folded beside the state. */
  readonly history = new HistoryIndex();
  private readonly lookUpHistory: boolean;
  private clock = 0;
  private ids = 0;

  constructor(options: SimulationOptions = {}) {
    this.exchange = new Exchange(options.recentOrders === undefined ? {} : { recentOrders: options.recentOrders });
    this.history.follow(this.exchange.state);
    this.lookUpHistory = options.lookUpHistory === true;
    for (const [i, trader] of TRADERS.entries()) this.run({ type: 'ProvisionTrader', username: `trader${i}`, trader_id: trader, api_key_hash: `h${i}` });
    for (const m of MARKETS) this.run(marketCommand(m));
  }


  /** Runs one command; refusals (and repeated client order ids) are normal in a random session and change nothing. */
  run(body: CommandBody): ExchangeEvent | null {
    let command = { ...body, time: at(++this.clock) } as Command;
    if (this.lookUpHistory && command.type === 'SubmitOrder' && command.client_order_id !== null && this.exchange.state.books.clientSlot(command.trader_id, command.client_order_id) < 0) {
      const earlier = this.history.orders.byClient(command.trader_id, command.client_order_id);
      if (earlier !== undefined) command = { ...command, earlier_order: earlier };
    }
    this.commands.push(command);
    try {
      return this.exchange.execute(command);
    } catch (err) {
      if (isDomainError(err)) this.refusals.set(err.code, (this.refusals.get(err.code) ?? 0) + 1);
      if (isDomainError(err) || err instanceof DuplicateSubmission) return null;
      throw err;
    }
  }

  /**
   * The largest position limit each market has had since it was (re)created: a limit lowered by a patch
   * leaves the positions and resting orders admitted under the higher one, which may still fill.
   */
  private readonly limits = new Map<string, number>();

  private noteLimits(): void {
    for (const m of this.exchange.state.markets.list()) this.limits.set(m.market_id, Math.max(this.limits.get(m.market_id) ?? 0, m.position_limit));
  }

  /** What every accepted submission must respect, whatever its type, time in force and STP mode. */
  private checkSubmission(event: ExchangeEvent): void {
    if (event.type !== 'OrderSubmitted') throw new Error(`a submission produced ${event.type}`);
    const { order, fills, remaining, status } = event.data;
    let filled = 0;
    for (const f of fills) filled += f.quantity;
    const rests = this.exchange.state.books.order(order.id) !== undefined;
    expect(rests, 'rests iff remaining > 0').to.equal(remaining > 0);
    if (order.type === 'MARKET' || order.time_in_force === 'IOC' || order.time_in_force === 'FOK') expect(rests, `${order.type}/${order.time_in_force} never rests`).to.equal(false);
    if (order.time_in_force === 'FOK') expect(filled === 0 || filled === order.quantity, 'FOK fills all or nothing').to.equal(true);
    if (order.time_in_force === 'FOK' && filled === 0) expect(status).to.equal('expired');
    if (order.time_in_force === 'POST_ONLY') expect(fills.length, 'POST_ONLY never takes').to.equal(0);
    if (order.self_trade_prevention !== 'NONE') for (const f of fills) expect(f.maker_trader_id, 'no self-trade under a CANCEL mode').to.not.equal(order.trader_id);
    expect(filled + remaining).to.be.at.most(order.quantity);
    expect(status === 'filled').to.equal(filled === order.quantity);
    // An accepted order leaves its side's worst case within the market's limit in force now.
    const state = this.exchange.state;
    const limit = state.markets.get(order.market)?.position_limit ?? 1000;
    const net = state.positions.net(order.trader_id, order.market);
    const exposure = state.books.exposure(order.trader_id, order.market);
    if (order.side === 'BUY') expect(net + exposure.buy, `worst-case long after ${order.id}`).to.be.at.most(limit);
    else expect(net - exposure.sell, `worst-case short after ${order.id}`).to.be.at.least(-limit);
    // A new resting order never takes its trader past the market's cap (the cap in force now).
    const cap = state.markets.get(order.market)?.max_open_orders ?? null;
    if (rests && cap !== null) expect(state.books.openCountAt(state.traderNames.indexOf(order.trader_id), state.marketNames.indexOf(order.market)), `open orders of ${order.trader_id} in ${order.market}`).to.be.at.most(cap);
    // Fees: recorded exactly as the market's rules in force give them, both or none.
    const m = state.markets.get(order.market);
    for (const f of fills) {
      if (m === undefined || (m.maker_fee_bps === 0 && m.taker_fee_bps === 0)) expect(f.maker_fee_e4 === undefined && f.taker_fee_e4 === undefined, 'no fees in a market without').to.equal(true);
      else expect([f.maker_fee_e4, f.taker_fee_e4]).to.deep.equal([f.price * f.quantity * m.maker_fee_bps, f.price * f.quantity * m.taker_fee_bps]);
    }
  }

  /** Runs what the schedule has due by the next command's time, as the server's timer would. */
  private runDue(): void {
    for (;;) {
      const next = this.exchange.state.schedule.pendingList()[0];
      if (next === undefined || next.at > at(this.clock + 1)) return;
      this.run({ type: 'RunScheduledAction', entry_id: next.entry_id, message_id: uuid(++this.ids) });
    }
  }

  step(a: Action): void {
    this.runDue();
    if (a.kind === 'schedule') {
      this.run({
        type: 'SetSchedule',
        entries: a.entries.map((e) => ({ entry_id: uuid(++this.ids), at: at(this.clock + 1 + e.after), action: (SCHEDULED[e.action] as (m: string) => ScheduledAction)(MARKETS[e.market] as string) })),
      });
      return;
    }
    const ids = { id: () => uuid(++this.ids), fillSeed: () => uuid(1_000_000 + ++this.ids * 1000), n: () => ++this.ids };
    for (const body of actionCommands(a, this.exchange.state, ids)) {
      // A market created afresh starts from the default limit again.
      if (body.type === 'DeleteMarket') this.limits.delete(body.market_id);
      const event = this.run(body);
      if (body.type === 'SubmitOrder' && event !== null) this.checkSubmission(event);
      this.noteLimits();
    }
  }

  /** The invariants that must hold after every command. */
  checkInvariants(): void {
    const state = this.exchange.state;
    state.checkConsistency(); // levels sorted, FIFO links, totals, indexes, and no crossed book
    for (const m of MARKETS) {
      let sum = 0;
      for (const t of TRADERS) {
        const net = state.positions.net(t, m);
        sum += net;
        // The records by interned trader and market (what fills and decide's trial read) are the ones by name.
        expect(state.positions.valuesAt(state.traderNames.indexOf(t), state.marketNames.indexOf(m)), `position of ${t} in ${m} by index`).to.equal(state.positions.values(t, m));
        expect(state.positions.netAt(state.traderNames.indexOf(t), state.marketNames.indexOf(m)), `net of ${t} in ${m} by index`).to.equal(net);
        const e = state.books.exposure(t, m);
        const limit = this.limits.get(m) ?? 1000;
        expect(net + e.buy, `worst-case long of ${t} in ${m}`).to.be.at.most(limit);
        expect(net - e.sell, `worst-case short of ${t} in ${m}`).to.be.at.least(-limit);
      }
      expect(sum, `net positions in ${m}`).to.equal(0);
    }
    // Fees: what the positions paid is what the fills recorded, to the ten-thousandth (integers).
    let paid = 0;
    for (const [, records] of state.positions.traders()) for (const r of records.values()) paid += r.values.fees;
    let recorded = 0;
    for (const t of TRADERS) for (const f of this.history.fills.listOf(t)) recorded += Math.round(f.fee * 10_000);
    expect(paid, 'fees in positions = fees of the fills').to.equal(recorded);
    // Marked net PnL sums to what the traders paid the exchange (zero without fees).
    const rows = state.leaderboard.at(state.seq);
    let pnl = paid / 10_000;
    let scale = 1;
    for (const r of rows) {
      pnl += r.net_pnl;
      scale += Math.abs(r.net_pnl);
    }
    expect(Math.abs(pnl), 'sum of marked net PnL plus fees').to.be.at.most(1e-9 * scale);
  }
}
