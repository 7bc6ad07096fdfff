// Snapshots of the live state, so recovery starts near the head of a long log instead of folding it all,
// and a fan-out child starts from the state as it is. Restoring one into a fresh state and folding the
// events after it gives the same live state (and stateHash) as folding the whole log. History (finished
// orders, fills, the tape, messages, official standings) is not in a snapshot: it lives where the
// history lives (docs/architecture.md, "Live state and history"), so a snapshot's size follows the live
// state, whatever the length of the log. The rings of recent deltas are not kept either: a client
// resubscribing from before the snapshot simply gets a fresh book snapshot.
//
// A snapshot is a head and then parts, each part one section's items, at most PART_ITEMS of them: it is
// written, stored, sent and read a part at a time (one JSON text each), and no one string ever holds a
// whole state, however many orders rest or traders trade.
//
// A snapshot of an older format is not upcast: it may lack state that later versions keep, or hold state
// this one does not, so recovery skips it and folds from an older snapshot of this format, or from the
// start of the log.
import type { SchemaVersion } from '../events/types.ts';
import type { KeyTuple } from './api-keys.ts';
import type { OrderSnapshot } from './books.ts';
import type { OrderStore } from './orders/order-store.ts';
import type { MinuteCandle } from './candles.ts';
import type { ExchangeState } from './exchange-state.ts';
import type { PositionsSnapshot } from './positions.ts';
import type { ScheduleEntryView } from './schedule.ts';
import type { SessionStatsView } from './session-stats.ts';
import type { ControlsView, MarketView, TraderView } from './views.ts';

/**
 * 4: live state only, in parts, with the competition rules (markets' rules, positions' fees, API keys).
 * Format 3 had no place for them (its markets restore without rules, its traders without the keys
 * beside their primary one), so recovery passes over it and folds from an older snapshot or the start
 * of the log, once; format 2 held the whole history in one document.
 */
export const SNAPSHOT_VERSION = 4;

/** Items per part: a part of resting orders is ~250 KB of JSON. */
export const PART_ITEMS = 1000;

export interface SnapshotHead {
  readonly version: typeof SNAPSHOT_VERSION;
  readonly seq: number;
  readonly time: string;
  /** The newest event schema version folded into it (ExchangeState.schema). */
  readonly schema: SchemaVersion;
  readonly controls: ControlsView;
  /** Fills since the last reset. */
  readonly fills_total: number;
  /** The seq of the last reset (HistoryBounds). */
  readonly reset_seq: number;
}

/**
 * A resting order as a snapshot keeps it: its fields in a fixed order, without names (its status is
 * open), its admission time as its code (microseconds since 1970) when it has one: about 160 bytes of
 * JSON, where the record with its names is 300, and read back without parsing a time.
 */
export type OrderTuple = [
  id: string,
  trader_id: string,
  market: string,
  side: OrderSnapshot['side'],
  price: number,
  quantity: number,
  remaining: number,
  created_at: string | number,
  type: OrderSnapshot['terms']['type'],
  time_in_force: OrderSnapshot['terms']['time_in_force'],
  self_trade_prevention: OrderSnapshot['terms']['self_trade_prevention'],
  client_order_id: string | null,
  seq: number,
  filled: number,
  notional: number,
];

/** The tuple of the order in `slot` of the store. */
export function orderTuple(orders: OrderStore, slot: number): OrderTuple {
  const t = orders.terms(slot);
  return [
    orders.id(slot),
    orders.traderId(slot),
    orders.marketId(slot),
    orders.side(slot),
    orders.price(slot),
    orders.quantity(slot),
    orders.remaining(slot),
    orders.createdCode(slot),
    t.type,
    t.time_in_force,
    t.self_trade_prevention,
    t.client_order_id,
    orders.seq(slot),
    orders.filled(slot),
    orders.notional(slot),
  ];
}

export function orderOfTuple(t: OrderTuple): OrderSnapshot {
  if (!Array.isArray(t) || t.length !== 15) throw new Error('snapshot: an order that is not a 15-field tuple');
  const [id, trader_id, market, side, price, quantity, remaining, created_at, type, time_in_force, self_trade_prevention, client_order_id, seq, filled, notional] = t;
  return { id, trader_id, market, side, price, quantity, remaining, created_at, terms: { type, time_in_force, self_trade_prevention, client_order_id }, seq, status: 'open', filled, notional };
}

/** Each section and the type of its items. */
export interface SnapshotSections {
  readonly markets: MarketView;
  readonly traders: TraderView;
  readonly positions: PositionsSnapshot['records'][number];
  readonly last_trade: PositionsSnapshot['last_trade'][number];
  readonly frozen_marks: PositionsSnapshot['frozen_marks'][number];
  /** Resting orders, book by book, each side best first and FIFO within a price. */
  readonly orders: OrderTuple;
  readonly book_sequences: [string, number];
  readonly user_sequences: [string, number];
  readonly schedule_pending: ScheduleEntryView;
  readonly schedule_done: ScheduleEntryView;
  readonly official_labels: [string, number];
  readonly session_stats: SessionStatsView;
  readonly candle_minutes: MinuteCandle;
  readonly deleted_markets: [string, number];
  /** The keys of each trader whose keys are not just the primary key of its record (ApiKeysProjection.changed). */
  readonly api_keys: [trader_id: string, keys: KeyTuple[]];
}

export type SnapshotSection = keyof SnapshotSections;

export type SnapshotPart = { readonly [S in SnapshotSection]: { readonly section: S; readonly items: readonly SnapshotSections[S][] } }[SnapshotSection];

/** A snapshot as values: its head, then its parts. */
export interface StateSnapshot {
  readonly head: SnapshotHead;
  readonly parts: readonly SnapshotPart[];
}

/** Items in parts of at most PART_ITEMS, without an array of the whole section. */
function* chunked<S extends SnapshotSection>(section: S, items: Iterable<SnapshotSections[S]>): Generator<SnapshotPart> {
  let chunk: SnapshotSections[S][] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === PART_ITEMS) {
      yield { section, items: chunk } as SnapshotPart;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield { section, items: chunk } as SnapshotPart;
}

function* tuples(state: ExchangeState): Generator<OrderTuple> {
  for (const slot of state.books.restingSlots()) yield orderTuple(state.books.orders, slot);
}

function* positionRecords(state: ExchangeState): Generator<SnapshotSections['positions']> {
  for (const [trader, records] of state.positions.traders()) for (const r of records.values()) yield [trader, r.market, r.values.net, r.values.cost, r.values.realized, r.updated_at, r.values.fees];
}

/** The head of a snapshot of the state as it is now. */
export function snapshotHead(state: ExchangeState): SnapshotHead {
  return {
    version: SNAPSHOT_VERSION,
    seq: state.seq,
    time: state.time,
    schema: state.schema,
    controls: state.markets.controls,
    fills_total: state.fills.count,
    reset_seq: state.bounds.resetSeq,
  };
}

/**
 * The parts of a snapshot of the state, read as they are yielded: the caller must take them all between
 * two events (synchronously, or from a state nothing else applies events to).
 */
export function* snapshotParts(state: ExchangeState): Generator<SnapshotPart> {
  const schedule = state.schedule.snapshot();
  yield* chunked('markets', state.markets.list());
  yield* chunked('traders', state.traders.all());
  yield* chunked('api_keys', state.keys.changed(state.traders.all()));
  yield* chunked('positions', positionRecords(state));
  yield* chunked('last_trade', state.positions.lastTrades());
  yield* chunked('frozen_marks', state.positions.frozenMarkEntries());
  yield* chunked('orders', tuples(state));
  yield* chunked('book_sequences', state.marketData.allSequences());
  yield* chunked('user_sequences', state.privateFeed.allSequences());
  yield* chunked('schedule_pending', schedule.pending);
  yield* chunked('schedule_done', schedule.done);
  yield* chunked('official_labels', state.official.snapshot());
  yield* chunked('session_stats', state.sessionStats.snapshot());
  yield* chunked('candle_minutes', state.candleMinutes.snapshot());
  yield* chunked('deleted_markets', state.bounds.snapshot().deleted);
}

/** A whole snapshot as values (tests, and states small enough to hold twice). */
export function takeSnapshot(state: ExchangeState): StateSnapshot {
  return { head: snapshotHead(state), parts: [...snapshotParts(state)] };
}

/**
 * Restores a snapshot into a fresh state part by part: `begin` with the head, `part` for each part in
 * the order they were written, `end` once all came. Only `end` makes the state take events.
 */
export class SnapshotRestorer {
  private readonly state: ExchangeState;
  private readonly head: SnapshotHead;
  private readonly schedulePending: ScheduleEntryView[] = [];
  private readonly scheduleDone: ScheduleEntryView[] = [];
  private ended = false;

  constructor(state: ExchangeState, head: SnapshotHead) {
    if (head.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${String(head.version)} is not ${SNAPSHOT_VERSION}`);
    if (state.seq !== 0) throw new Error('a snapshot restores only into a fresh state');
    this.state = state;
    this.head = head;
    state.fills.restore({ total: head.fills_total });
  }

  part(part: SnapshotPart): void {
    if (this.ended) throw new Error('snapshot: a part after the end');
    const state = this.state;
    switch (part.section) {
      case 'markets':
        state.markets.restore({ controls: this.head.controls, markets: part.items });
        return;
      case 'traders':
        state.traders.restore(part.items);
        return;
      case 'positions':
        state.positions.restore({ records: part.items, last_trade: [], frozen_marks: [] });
        return;
      case 'last_trade':
        state.positions.restore({ records: [], last_trade: part.items, frozen_marks: [] });
        return;
      case 'frozen_marks':
        state.positions.restore({ records: [], last_trade: [], frozen_marks: part.items });
        return;
      case 'orders':
        state.books.restoreResting(part.items.map(orderOfTuple));
        return;
      case 'book_sequences':
        state.marketData.restoreSequences(part.items);
        return;
      case 'user_sequences':
        state.privateFeed.restoreSequences(part.items);
        return;
      case 'schedule_pending':
        for (const e of part.items) this.schedulePending.push(e);
        return;
      case 'schedule_done':
        for (const e of part.items) this.scheduleDone.push(e);
        return;
      case 'official_labels':
        state.official.restore(part.items);
        return;
      case 'session_stats':
        state.sessionStats.restore(part.items);
        return;
      case 'candle_minutes':
        state.candleMinutes.restore(part.items);
        return;
      case 'deleted_markets':
        state.bounds.restore({ reset_seq: this.head.reset_seq, deleted: part.items });
        return;
      case 'api_keys':
        for (const [traderId, keys] of part.items) state.keys.restoreTrader(traderId, keys);
        return;
      default: {
        const unknown: never = part;
        throw new Error(`snapshot: unknown section ${JSON.stringify((unknown as { section: unknown }).section)}`);
      }
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const { state, head } = this;
    // Without a part the controls still come from the head (a snapshot of an exchange with no market).
    state.markets.restore({ controls: head.controls, markets: [] });
    state.bounds.restore({ reset_seq: head.reset_seq, deleted: [] });
    state.schedule.restore({ pending: this.schedulePending, done: this.scheduleDone });
    // Every trader the api_keys parts did not name holds just the primary key of its record.
    state.keys.restoreDefaults(state.traders.all());
    state.restoreHead(head.seq, head.time, head.schema);
  }
}

/** Restores a snapshot held as values into a fresh state (one that has applied no event). */
export function restoreSnapshot(state: ExchangeState, snapshot: StateSnapshot): void {
  const restorer = new SnapshotRestorer(state, snapshot.head);
  for (const part of snapshot.parts) restorer.part(part);
  restorer.end();
}

/** The snapshot's text, a line a part (the head first): what is stored and sent, never joined whole. */
export function* snapshotLines(state: ExchangeState): Generator<string> {
  yield JSON.stringify(snapshotHead(state));
  for (const part of snapshotParts(state)) yield JSON.stringify(part);
}

/** Restores a snapshot from its lines (snapshotLines), read one at a time. */
export function restoreLines(state: ExchangeState, lines: Iterable<string>): void {
  let restorer: SnapshotRestorer | null = null;
  for (const line of lines) {
    if (restorer === null) restorer = new SnapshotRestorer(state, JSON.parse(line) as SnapshotHead);
    else restorer.part(JSON.parse(line) as SnapshotPart);
  }
  if (restorer === null) throw new Error('snapshot: no head');
  restorer.end();
}

/** Restores a snapshot from its lines as they arrive (a database read, a channel). */
export async function restoreLinesFrom(state: ExchangeState, lines: AsyncIterable<string>): Promise<void> {
  let restorer: SnapshotRestorer | null = null;
  for await (const line of lines) {
    if (restorer === null) restorer = new SnapshotRestorer(state, JSON.parse(line) as SnapshotHead);
    else restorer.part(JSON.parse(line) as SnapshotPart);
  }
  if (restorer === null) throw new Error('snapshot: no head');
  restorer.end();
}
