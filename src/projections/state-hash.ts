// The state hash: SHA-256 over a canonical serialization of every projection. Two runs that applied
// the same log must agree on it byte for byte; live run versus replay, restart versus no restart.
import { canonicalJson } from '../events/canonical.ts';
import { sha256Hex } from '../events/hash.ts';
import type { ExchangeState } from './exchange-state.ts';

function byKey<T>(entries: Iterable<[string, T]>): [string, T][] {
  return [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** A plain, canonically ordered picture of the whole state. */
export function canonicalState(state: ExchangeState): unknown {
  // Empty books are left out: whether an empty book object exists is not part of the state.
  const markets = [...state.books.markets()].filter((m) => state.books.marketOrderCount(m) > 0);
  const books = byKey(markets.map((m) => [m, m] as [string, string])).map(([market]) => {
    const book = state.books.book(market);
    const orders = state.books.orders;
    const side = (s: 'BUY' | 'SELL') =>
      book === undefined ? [] : [...book.sideOf(s).orderSlots()].map((slot) => [orders.id(slot), orders.traderId(slot), orders.price(slot), orders.quantity(slot), orders.remaining(slot), orders.createdAt(slot)]);
    return { market, bids: side('BUY'), asks: side('SELL') };
  });
  const positions = byKey(state.positions.traders()).map(([trader, records]) => ({
    trader,
    records: byKey(records.entries()).map(([market, r]) => [market, r.values.net, r.values.cost, r.values.realized, r.updated_at]),
  }));
  const fills = byKey(state.fills.traders()).map(([trader, list]) => ({ trader, fills: list }));
  const traders = [...state.traders.all()].sort((a, b) => (a.trader_id < b.trader_id ? -1 : 1));
  const marks = state.markets.list().map((m) => [m.market_id, state.leaderboard.markPrice(m.market_id)]);
  const { last_trade, frozen_marks } = state.positions.snapshot();
  const picture: Record<string, unknown> = {
    seq: state.seq,
    controls: state.markets.controls,
    markets: state.markets.list(),
    marks,
    last_trade: byKey(last_trade),
    frozen_marks: byKey(frozen_marks),
    traders,
    books,
    positions,
    fills,
    messages: state.messages.newest(Number.MAX_SAFE_INTEGER),
    book_sequences: byKey(state.marketData.allSequences()),
    user_sequences: byKey(state.privateFeed.allSequences()),
    leaderboard: state.leaderboard.at(state.seq),
  };
  if (state.schema >= 2) Object.assign(picture, schemaV2Members(state));
  return picture;
}

/**
 * State that schema version 2 brought in. A log written only with version 1 hashes exactly as it always
 * did (the recorded logs under replay/fixtures/ keep their golden hashes); once a log holds a version-2
 * event, the hash also covers the schema version and every member below. A member that is empty is left
 * out, so a feature a log never used does not change its hash either.
 */
function schemaV2Members(state: ExchangeState): Record<string, unknown> {
  const members: Record<string, unknown> = { schema: state.schema };
  // Every order since the last reset, in any status, with its terms and fills so far (the client order
  // id index is the `client_order_id` of these records).
  const orders = [...state.books.allOrders()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((o) => [o.id, o.trader_id, o.market, o.side, o.price, o.quantity, o.remaining, o.status, o.filled, o.notional, o.terms.type, o.terms.time_in_force, o.terms.self_trade_prevention, o.terms.client_order_id, o.created_at, o.seq]);
  if (orders.length > 0) members['orders'] = orders;
  const tape = byKey(state.tape.markets())
    .filter(([, trades]) => trades.length > 0)
    .map(([market, trades]) => ({ market, trades: trades.map((t) => [t.trade_id, t.price, t.quantity, t.taker_side, t.occurred_at, t.seq, t.n]) }));
  if (tape.length > 0) members['tape'] = tape;
  if (!state.schedule.isEmpty) members['schedule'] = state.schedule.snapshot();
  if (!state.official.isEmpty) members['official'] = state.official.snapshot();
  return members;
}

export function stateHash(state: ExchangeState): string {
  return sha256Hex(canonicalJson(canonicalState(state)));
}
