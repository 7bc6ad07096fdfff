// The history served from PostgreSQL (src/server/history/postgres-history.ts) answers exactly what the
// in-memory projections answer, over random sessions: every trader's fills whole and page by page with
// their cursors, every market's tape page by page, candles of several intervals over aligned and
// unaligned ranges, every order by id and by client order id, a duplicate's answer, messages and
// official standings. The oracle is the projections as the service kept them in memory before the
// history left the live state: an exchange whose books keep every order since the last reset, and the
// fills, tape, messages and standings of history/ (the same code, moved). The exchange under test keeps
// a window of two finished orders, so orders and client order ids are answered by the database. Answers
// are compared while batches are still queued (the feed's part of the answer), once they are stored,
// and after a restart (recovery, the client order id filter and the messages cache loaded again).
import { expect } from 'chai';
import fc from 'fast-check';
import { isDomainError } from '../../src/commands/errors.ts';
import { DuplicateSubmission } from '../../src/commands/duplicate-submission.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import type { Command, CommandBody } from '../../src/commands/types.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { orderView } from '../../src/projections/books.ts';
import { candles, type CandleInterval } from '../../src/projections/candles.ts';
import { compareFills } from '../../src/projections/fills.ts';
import { HistoryIndex } from '../../src/projections/history/history-index.ts';
import type { TapeTrade } from '../../src/projections/history/trade-tape.ts';
import type { FillView } from '../../src/projections/views.ts';
import { AdmissionClock } from '../../src/server/clock.ts';
import { encodeCursor } from '../../src/server/http/cursor.ts';
import { pageBackwards } from '../../src/projections/history/page-backwards.ts';
import type { Maybe } from '../../src/server/history/history.ts';
import { duplicateReply, findOrder, findOrderByClientId } from '../../src/server/history/order-lookups.ts';
import { prng } from '../../replay/prng.ts';
import { actionArb, actionCommands, marketCommand, MARKETS, TRADERS, type Action } from '../core/simulation.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { openInstance, settle, submitLookedUp, type Instance } from './support/harness.ts';

/** An admission clock that moves by the steps a seeded generator gives: microseconds to most of a minute. */
class SteppingClock extends AdmissionClock {
  private micros = 1_790_000_000_000_000;
  private readonly rand: () => number;

  constructor(seed: number) {
    super();
    this.rand = prng(seed);
  }

  override nowMicros(): number {
    const r = this.rand();
    this.micros += r < 0.5 ? 1 + Math.floor(r * 1000) : r < 0.9 ? Math.floor(r * 3_000_000) : Math.floor(r * 50_000_000);
    return this.micros;
  }

  override advanceTo(): void {}
}

/** The oracle: every order since the last reset in the books, the whole history beside them. */
class Oracle {
  readonly exchange = new Exchange({ recentOrders: 1_000_000_000, deltaRing: 0 });
  readonly history = new HistoryIndex();
  readonly orderIds: { id: string; trader: string }[] = [];

  constructor() {
    this.history.follow(this.exchange.state);
  }

  fold(event: ExchangeEvent): void {
    this.exchange.fold(event);
    if (event.type === 'OrderSubmitted') this.orderIds.push({ id: event.data.order.id, trader: event.data.order.trader_id });
  }
}


interface Run {
  instance: Instance;
  readonly clock: SteppingClock;
  readonly oracle: Oracle;
  readonly labels: Set<string>;
  ids: number;
}

function commandFor(run: Run, a: Action): CommandBody[] {
  if (a.kind === 'schedule') return [];
  const uuid = (n: number) => `bbbbbbbb-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const ids = { id: () => uuid(++run.ids), fillSeed: () => uuid(1_000_000 + ++run.ids * 1000), n: () => ++run.ids };
  const bodies = actionCommands(a, run.instance.exchange.state, ids);
  if (a.kind === 'freeze') run.labels.add(`round ${a.label}`);
  // A market switched on or off is announced: messages in the history.
  if (a.kind === 'toggle') bodies.push({ type: 'PostAdminMessage', message_id: ids.id(), target_username: null, market: MARKETS[a.market] as string, level: 'info', title: null, body: `market ${a.enabled ? 'on' : 'off'}` });
  return bodies;
}

/** Runs one command as the HTTP and WebSocket routes do (a submission looks its client order id up first). */
async function execute(run: Run, body: CommandBody): Promise<void> {
  const { service, exchange, persistence } = run.instance;
  const state = exchange.state;
  const history = persistence.history;
  const build = (time: string): Command => ({ ...body, time }) as Command;
  try {
    let event: ExchangeEvent;
    if (body.type === 'SubmitOrder') {
      event = await submitLookedUp(service, history, body.trader_id, body.client_order_id, build);
    } else event = await service.execute((s) => build(s.time));
    run.oracle.fold(event);
  } catch (err) {
    if (err instanceof DuplicateSubmission) {
      // The repeat's answer: the first order as it is now and all its fills, as the projections give it.
      const reply = await settle(duplicateReply(state, history, err));
      const first = run.oracle.exchange.state.books.anyOrder(err.orderId);
      expect(first, 'the oracle knows the first order').to.not.equal(undefined);
      const want = { order: orderView(first as NonNullable<typeof first>), fills: run.oracle.history.fillsOfOrder(first as NonNullable<typeof first>), resting: first?.status === 'open', duplicate: true };
      expect(reply, `duplicate of ${err.orderId}`).to.deep.equal(want);
      return;
    }
    if (!isDomainError(err)) throw err;
  }
}

/** Pages newest first, each asked with the previous one's cursor: every page and cursor, in order. */
async function walk<T>(limit: number, page: (before: T | null) => Maybe<{ items: T[]; more: boolean }>, cursor: (last: T) => string): Promise<{ items: T[]; next: string | null }[]> {
  const pages: { items: T[]; next: string | null }[] = [];
  let before: T | null = null;
  for (let i = 0; i < 10_000; i++) {
    const p: { items: T[]; more: boolean } = await settle(page(before));
    expect(p.items.length).to.be.at.most(limit);
    const last: T | undefined = p.items[p.items.length - 1];
    pages.push({ items: p.items, next: p.more && last !== undefined ? cursor(last) : null });
    if (!p.more || last === undefined) return pages;
    before = last;
  }
  throw new Error('walk: no end');
}

async function compareAll(run: Run, when: string): Promise<void> {
  const { exchange, persistence } = run.instance;
  const state = exchange.state;
  const history = persistence.history;
  const oracle = run.oracle;
  const index = oracle.history;
  expect(state.seq, `${when}: the oracle folded every event`).to.equal(oracle.exchange.state.seq);
  const rand = prng(state.seq + 1);
  const marketsOrAll = [undefined, ...MARKETS];
  // Every list whole; pages of every trader's fills, and of one trader's in each market (a page of a
  // few walks a list in many queries, each from the cursor of the one before).
  for (const [t, trader] of TRADERS.entries()) {
    for (const market of marketsOrAll) {
      const whole: FillView[] = [];
      for await (const batch of history.fills(trader, market)) whole.push(...batch);
      expect(whole, `${when}: fills of ${trader} in ${market ?? 'every market'}`).to.deep.equal(index.fills.of(trader, market));
      if (market !== undefined && t !== 0) continue;
      for (const limit of [7, 1000]) {
        const got = await walk<FillView>(limit, (before) => history.fillsPage(trader, market, before, limit), (f) => encodeCursor('fills', [f.occurred_at, f.fill_id]));
        const want = await walk<FillView>(
          limit,
          (before) => pageBackwards(index.fills.listOf(trader), limit, before === null ? null : (f) => compareFills(f, before) < 0, market === undefined ? undefined : (f) => f.market === market),
          (f) => encodeCursor('fills', [f.occurred_at, f.fill_id]),
        );
        expect(got, `${when}: fill pages of ${trader} in ${market ?? 'every market'}, limit ${limit}`).to.deep.equal(want);
      }
    }
  }
  for (const market of MARKETS) {
    for (const limit of [5, 1000]) {
      const got = await walk<TapeTrade>(limit, (before) => history.tapePage(market, before, limit), (t) => encodeCursor('trades', [t.seq, t.n]));
      const want = await walk<TapeTrade>(
        limit,
        (before) => {
          const items = index.tape.page(market, limit + 1, before ?? undefined);
          const more = items.length > limit;
          if (more) items.pop();
          return { items, more };
        },
        (t) => encodeCursor('trades', [t.seq, t.n]),
      );
      expect(got, `${when}: tape pages of ${market}, limit ${limit}`).to.deep.equal(want);
    }
    const trades = index.tape.trades(market);
    const first = trades[0];
    const last = trades[trades.length - 1];
    if (first === undefined || last === undefined) continue;
    const from = Date.parse(first.occurred_at) * 1000;
    const to = Date.parse(last.occurred_at) * 1000 + 1_000;
    const ranges: [number, number][] = [
      [from - 120_000_000, to + 120_000_000],
      [Math.floor(from / 60_000_000) * 60_000_000, Math.ceil(to / 60_000_000) * 60_000_000],
      [from + Math.floor(rand() * 90_000_000), to - Math.floor(rand() * 90_000_000)],
      [from + Math.floor(rand() * 10_000_000), from + Math.floor(rand() * 10_000_000) + 20_000_000],
    ];
    for (const [a, b] of ranges) {
      if (a >= b) continue;
      for (const interval of ['1m', '5m', '1h'] as CandleInterval[]) {
        expect(await settle(history.candles(market, interval, a, b)), `${when}: candles of ${market}, ${interval}, [${a}, ${b})`).to.deep.equal(candles(trades, interval, a, b));
      }
    }
  }
  // Orders by id: a sample, the newest among them (the window's and the feed's) and old ones alike.
  const sample = oracle.orderIds.filter((_, i) => i >= oracle.orderIds.length - 6 || rand() < 40 / Math.max(40, oracle.orderIds.length));
  for (const { id, trader } of sample) {
    const got = await settle(findOrder(state, history, trader, id));
    const want = oracle.exchange.state.books.anyOrder(id);
    expect(got === undefined ? undefined : orderView(got), `${when}: order ${id}`).to.deep.equal(want === undefined ? undefined : orderView(want));
    if (got !== undefined) expect(await settle(history.fillsOfOrder(got)), `${when}: fills of order ${id}`).to.deep.equal(index.fillsOfOrder(got));
  }
  for (const trader of TRADERS.slice(0, 2)) {
    for (let c = 0; c <= 20; c++) {
      const got = await settle(findOrderByClientId(state, history, trader, `c${c}`));
      const want = oracle.exchange.state.books.byClientId(trader, `c${c}`);
      expect(got === undefined ? undefined : orderView(got), `${when}: ${trader}'s order c${c}`).to.deep.equal(want === undefined ? undefined : orderView(want));
    }
  }
  for (const limit of [1, 50, 1000]) expect(await settle(history.messages(limit)), `${when}: the ${limit} newest messages`).to.deep.equal(index.messages.newest(limit));
  expect(await settle(history.standings()), `${when}: official standings`).to.deep.equal(index.official.all());
  for (const label of [...run.labels, 'never frozen']) expect(await settle(history.standing(label)), `${when}: standings ${label}`).to.deep.equal(index.official.byLabel(label));
}

const ENV = { POSTGRES_WRITE_FLUSH_INTERVAL_MS: '40', POSTGRES_WRITE_BATCH_SIZE: '16', SNAPSHOT_EVERY_EVENTS: '0' };

async function session(url: string, actions: readonly Action[], seed: number): Promise<void> {
  const clock = new SteppingClock(seed);
  const open = (): Promise<Instance> => openInstance(url, ENV, {}, { recentOrders: 2, clock });
  const run: Run = { instance: await open(), clock, oracle: new Oracle(), labels: new Set(), ids: 0 };
  try {
    for (const [i, t] of TRADERS.entries()) await execute(run, { type: 'ProvisionTrader', username: `trader${i}`, trader_id: t, api_key_hash: `h${i}` });
    for (const m of MARKETS) await execute(run, marketCommand(m));
    const restartAt = Math.floor(actions.length * 0.6);
    for (const [i, a] of actions.entries()) {
      for (const body of commandFor(run, a)) await execute(run, body);
      if (i === Math.floor(actions.length / 3)) await compareAll(run, `after ${i + 1} actions, batches queued`);
      if (i === restartAt) {
        await run.instance.persistence.snapshotter.snapshotNow();
        await run.instance.close();
        run.instance = await open();
        await compareAll(run, `after a restart at ${i + 1} actions`);
      }
    }
    await compareAll(run, 'at the end, batches queued');
    await run.instance.persistence.durable(run.instance.exchange.seq);
    await compareAll(run, 'at the end, all stored');
  } finally {
    await run.instance.close();
  }
}

describe('PostgreSQL history: every answer is the in-memory projections\' own', function () {
  this.timeout(600_000);

  before(async function () {
    await requirePostgres(this);
  });

  it('over random sessions: fills, tape, candles, orders, duplicates, messages, standings, page by page with cursors, before and after they are stored and after a restart', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 80, maxLength: 220 }), fc.integer({ min: 1, max: 2 ** 30 }), async (actions, seed) => {
        const url = await createDatabase('exchange_history');
        try {
          await session(url, actions, seed);
        } finally {
          await dropDatabase(url);
        }
      }),
      { numRuns: 16, seed: 20261128 },
    );
  });
});

