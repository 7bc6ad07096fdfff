// The state hash, version 3: SHA-256 over a canonical serialization of the live state. Two runs that
// applied the same log agree on it byte for byte: live run versus replay, restart versus no restart,
// snapshot plus tail versus the whole log.
//
// It covers the live state only (what a snapshot holds), not the history (finished orders, fills, the
// tape, messages, official standings), which the process does not hold. With the chain hash of its
// head, H(previous hash ‖ canonical event) as the log stores it, it commits to every event of the log,
// and so to all the history those events make, without holding any of it: that is what the server
// publishes (GET /api/v1/admin/state-hash) and `replay state --state-hash` prints. Without it (tests
// comparing two states folded from one log), it fingerprints the live state.
//
// Logs were hashed differently before the live state and the history were separated: version 1 (a log
// of schema-1 events only) and version 2 covered the whole history. Those values are what
// legacy-state-hash.ts computes, offline, from a state and its complete history (the replay tool's
// `--hash-version 2`); the recorded fixtures under replay/fixtures/ carry both (docs/replay.md).
import { sha256Canonical } from '../events/hash.ts';
import type { ExchangeState } from './exchange-state.ts';
import { hashedMarket } from './market-rules.ts';

export const STATE_HASH_VERSION = 3;

export function byKey<T>(entries: Iterable<[string, T]>): [string, T][] {
  return [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** The resting orders of every non-empty book, by market, each side best first and FIFO within a price. */
export function restingBooks(state: ExchangeState, row: (slot: number) => unknown[]): { market: string; bids: unknown[][]; asks: unknown[][] }[] {
  // Empty books are left out: whether an empty book object exists is not part of the state.
  const markets = [...state.books.markets()].filter((m) => state.books.marketOrderCount(m) > 0).sort();
  return markets.map((market) => {
    const book = state.books.book(market);
    const side = (s: 'BUY' | 'SELL') => (book === undefined ? [] : [...book.sideOf(s).orderSlots()].map(row));
    return { market, bids: side('BUY'), asks: side('SELL') };
  });
}

/**
 * What every version of the hash has covered the same way. The competition rules (schema version 3)
 * add to it only what a log used: a market's rules where they are not the defaults (hashedMarket), the
 * fees of positions that paid some, the keys issued or revoked; so a log that used none hashes as before.
 */
export function commonMembers(state: ExchangeState): Record<string, unknown> {
  const positions = byKey(state.positions.traders()).map(([trader, records]) => ({
    trader,
    records: byKey(records.entries()).map(([market, r]) => [market, r.values.net, r.values.cost, r.values.realized, r.updated_at]),
  }));
  const fees = byKey(state.positions.traders())
    .map(([trader, records]) => ({ trader, fees: byKey(records.entries()).filter(([, r]) => r.values.fees !== 0).map(([market, r]) => [market, r.values.fees]) }))
    .filter((t) => t.fees.length > 0);
  const keys = [...state.keys.hashed(state.traders.all())].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const marks = state.markets.list().map((m) => [m.market_id, state.leaderboard.markPrice(m.market_id)]);
  return {
    ...(fees.length > 0 ? { position_fees: fees } : {}),
    ...(keys.length > 0 ? { api_keys: keys } : {}),
    seq: state.seq,
    controls: state.markets.controls,
    markets: state.markets.list().map(hashedMarket),
    marks,
    last_trade: byKey(state.positions.lastTrades()),
    frozen_marks: byKey(state.positions.frozenMarkEntries()),
    traders: [...state.traders.all()].sort((a, b) => (a.trader_id < b.trader_id ? -1 : 1)),
    positions,
    book_sequences: byKey(state.marketData.allSequences()),
    user_sequences: byKey(state.privateFeed.allSequences()),
    leaderboard: state.leaderboard.at(state.seq),
  };
}

/** A plain, canonically ordered picture of the live state. */
export function canonicalState(state: ExchangeState, chainHash?: string): unknown {
  const orders = state.books.orders;
  // Every field of a resting order: its terms and fills so far are live state as much as its remaining.
  const books = restingBooks(state, (slot) => {
    const o = orders.record(slot);
    return [o.id, o.trader_id, o.price, o.quantity, o.remaining, o.created_at, o.terms.type, o.terms.time_in_force, o.terms.self_trade_prevention, o.terms.client_order_id, o.filled, o.notional, o.seq];
  });
  const picture: Record<string, unknown> = {
    hash_version: STATE_HASH_VERSION,
    schema: state.schema,
    ...commonMembers(state),
    books,
    fills_total: state.fills.count,
    reset_seq: state.bounds.resetSeq,
    deleted_markets: state.bounds.snapshot().deleted,
    session_stats: state.sessionStats.snapshot(),
    candle_minutes: state.candleMinutes.snapshot().sort((a, b) => (a.market < b.market ? -1 : a.market > b.market ? 1 : 0)),
  };
  if (!state.schedule.isEmpty) picture['schedule'] = state.schedule.snapshot();
  if (!state.official.isEmpty) picture['official_labels'] = state.official.snapshot();
  if (chainHash !== undefined) picture['chain_hash'] = chainHash;
  return picture;
}

/**
 * The state hash of the live state; with `chainHash`, the chain hash of the log's event at the state's
 * seq, the hash that commits to the whole log as well (what the server and the replay tool publish).
 */
export function stateHash(state: ExchangeState, chainHash?: string): string {
  // Hashed in pieces: a state of millions of resting orders is never one string.
  return sha256Canonical(canonicalState(state, chainHash));
}
