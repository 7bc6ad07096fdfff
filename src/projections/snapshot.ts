// Snapshots of the whole state, so recovery can start near the head of a long log instead of folding
// it all. A snapshot is plain JSON; restoring it into a fresh state and folding the events after it
// gives the same state (and stateHash) as folding the whole log. The rings of recent deltas are not
// kept: a client resubscribing from before the snapshot simply gets a fresh book snapshot.
//
// A snapshot of an older format is not upcast: it may lack state that later versions keep (which the
// events it summarizes would have built), so recovery skips it and folds from an older snapshot of this
// format, or from the start of the log.
import type { SchemaVersion } from '../events/types.ts';
import type { ExchangeState } from './exchange-state.ts';
import type { OrderSnapshot } from './books.ts';
import type { PositionsSnapshot } from './positions.ts';
import type { OfficialStandingsView } from './official.ts';
import type { ScheduleSnapshot } from './schedule.ts';
import type { TapeTrade } from './trade-tape.ts';
import type { AdminMessageView, ControlsView, FillView, MarketView, TraderView } from './views.ts';

export const SNAPSHOT_VERSION = 2;

export interface StateSnapshot {
  readonly version: typeof SNAPSHOT_VERSION;
  readonly seq: number;
  readonly time: string;
  /** The newest event schema version folded into it (ExchangeState.schema). */
  readonly schema: SchemaVersion;
  readonly controls: ControlsView;
  readonly markets: MarketView[];
  readonly traders: TraderView[];
  readonly messages: AdminMessageView[];
  /** Resting orders in book order, then every other order since the last reset. */
  readonly orders: { readonly resting: OrderSnapshot[]; readonly done: OrderSnapshot[] };
  readonly tape: [string, TapeTrade[]][];
  readonly positions: PositionsSnapshot;
  readonly fills: { total: number; by_trader: [string, FillView[]][] };
  readonly book_sequences: [string, number][];
  readonly user_sequences: [string, number][];
  /** Absent when empty (and in snapshots written before the schedule existed). */
  readonly schedule?: ScheduleSnapshot;
  readonly official?: OfficialStandingsView[];
}

/** Synchronous, so it sees one consistent state between two events. */
export function takeSnapshot(state: ExchangeState): StateSnapshot {
  const { controls, markets } = state.markets.snapshot();
  return {
    version: SNAPSHOT_VERSION,
    seq: state.seq,
    time: state.time,
    schema: state.schema,
    controls,
    markets,
    traders: state.traders.snapshot(),
    messages: state.messages.snapshot(),
    orders: state.books.snapshot(),
    tape: state.tape.snapshot(),
    positions: state.positions.snapshot(),
    fills: state.fills.snapshot(),
    book_sequences: [...state.marketData.allSequences()],
    user_sequences: [...state.privateFeed.allSequences()],
    ...(state.schedule.isEmpty ? {} : { schedule: state.schedule.snapshot() }),
    ...(state.official.isEmpty ? {} : { official: state.official.snapshot() }),
  };
}

/** Restores a snapshot into a fresh state (one that has applied no event). */
export function restoreSnapshot(state: ExchangeState, snapshot: StateSnapshot): void {
  if (snapshot.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${String(snapshot.version)} is not ${SNAPSHOT_VERSION}`);
  if (state.seq !== 0) throw new Error('restoreSnapshot needs a fresh state');
  state.markets.restore({ controls: snapshot.controls, markets: snapshot.markets });
  state.traders.restore(snapshot.traders);
  state.messages.restore(snapshot.messages);
  state.books.restore(snapshot.orders);
  state.tape.restore(snapshot.tape);
  state.positions.restore(snapshot.positions);
  state.fills.restore(snapshot.fills);
  state.marketData.restoreSequences(snapshot.book_sequences);
  state.privateFeed.restoreSequences(snapshot.user_sequences);
  state.schedule.restore(snapshot.schedule);
  state.official.restore(snapshot.official);
  state.restoreHead(snapshot.seq, snapshot.time, snapshot.schema);
}
