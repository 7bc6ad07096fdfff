// The state hash as it was defined before the live state and the history were separated (versions 1
// and 2), computed from a state and its complete history: what the recorded logs' expected values
// (replay/fixtures/*.expected.json, `state_hash`) and earlier audits hold. Version 2 covered every
// order since the last reset, every fill, the trade tape and every message; a log of schema-1 events
// only (version 1) covered the same picture without the orders, the tape and the schema. Offline only:
// it needs the whole history in memory (state-hash.ts says what the server publishes instead).
import { canonicalJson } from '../../events/canonical.ts';
import { sha256Hex } from '../../events/hash.ts';
import type { OrderRecord } from '../books.ts';
import type { ExchangeState } from '../exchange-state.ts';
import { byKey, commonMembers, restingBooks } from '../state-hash.ts';
import type { HistoryIndex } from './history-index.ts';

/** The picture versions 1 and 2 hashed, member for member as they built it. */
export function legacyCanonicalState(state: ExchangeState, history: HistoryIndex): unknown {
  const orders = state.books.orders;
  const books = restingBooks(state, (slot) => [orders.id(slot), orders.traderId(slot), orders.price(slot), orders.quantity(slot), orders.remaining(slot), orders.createdAt(slot)]);
  const common = commonMembers(state);
  const picture: Record<string, unknown> = {
    seq: common['seq'],
    controls: common['controls'],
    markets: common['markets'],
    marks: common['marks'],
    last_trade: common['last_trade'],
    frozen_marks: common['frozen_marks'],
    traders: common['traders'],
    books,
    positions: common['positions'],
    // A fill as versions 1 and 2 saw it: without the fee and liquidity of one side, which came later.
    fills: byKey(history.fills.traders()).map(([trader, list]) => ({ trader, fills: list.map(({ fee: _fee, liquidity: _liquidity, ...fill }) => fill) })),
    messages: history.messages.newest(Number.MAX_SAFE_INTEGER),
    book_sequences: common['book_sequences'],
    user_sequences: common['user_sequences'],
    leaderboard: common['leaderboard'],
  };
  if (state.schema < 2) return picture;
  picture['schema'] = state.schema;
  // Every order since the last reset, in any status: the open ones are the books', the others the history's.
  const all: OrderRecord[] = [...state.books.restingRecords(), ...history.finishedOrders(state)];
  const rows = all
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((o) => [o.id, o.trader_id, o.market, o.side, o.price, o.quantity, o.remaining, o.status, o.filled, o.notional, o.terms.type, o.terms.time_in_force, o.terms.self_trade_prevention, o.terms.client_order_id, o.created_at, o.seq]);
  if (rows.length > 0) picture['orders'] = rows;
  const tape = byKey(history.tape.markets())
    .filter(([, trades]) => trades.length > 0)
    .map(([market, trades]) => ({ market, trades: trades.map((t) => [t.trade_id, t.price, t.quantity, t.taker_side, t.occurred_at, t.seq, t.n]) }));
  if (tape.length > 0) picture['tape'] = tape;
  if (!state.schedule.isEmpty) picture['schedule'] = state.schedule.snapshot();
  if (!history.official.isEmpty) picture['official'] = history.official.snapshot();
  return picture;
}

/** The version-1/2 state hash (version 1 for a log of schema-1 events only). */
export function legacyStateHash(state: ExchangeState, history: HistoryIndex): string {
  return sha256Hex(canonicalJson(legacyCanonicalState(state, history)));
}
