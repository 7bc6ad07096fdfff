// Frames of the conflated public channels (docs/websocket.md, "Conflated market data"). Each is built
// once per interval (per market and depth) and the same Buffer goes to every subscriber.
import type { LeaderboardRow } from '../../projections/views.ts';
import type { Frame, ServerMessageName } from '../ws/server-messages.ts';
import { WireFrame } from '../ws/wire-frame.ts';
import type { L2Level } from './l2-book.ts';

/** Encoded once, framed once: every subscriber's socket gets the same bytes. */
function wire(json: string): WireFrame {
  return new WireFrame(Buffer.from(json));
}

/** Typed by the frame's schema in ws/server-messages.ts (the AsyncAPI document's source). */
function text<K extends ServerMessageName>(message: Frame<K>): string {
  return JSON.stringify(message);
}

export interface TickerView {
  readonly market: string;
  readonly best_bid: number | null;
  readonly best_bid_quantity: number | null;
  readonly best_ask: number | null;
  readonly best_ask_quantity: number | null;
  readonly last_price: number | null;
  readonly last_quantity: number | null;
  readonly volume: number;
  readonly high: number | null;
  readonly low: number | null;
  readonly trades: number;
}

/** A standings row as the public sees it: the internal trader_id stays out. */
export type PublicStandingsRow = Omit<LeaderboardRow, 'trader_id'>;

export function l2SnapshotFrame(market: string, sequence: number, depth: number | null, bids: readonly L2Level[], asks: readonly L2Level[]): string {
  return text<'l2_snapshot'>({ type: 'snapshot', channel: 'l2', market, sequence, depth, bids, asks });
}

export function l2UpdateFrame(market: string, sequence: number, depth: number | null, bids: readonly L2Level[], asks: readonly L2Level[]): WireFrame {
  return wire(text<'l2_update'>({ type: 'update', channel: 'l2', market, sequence, depth, bids, asks }));
}

export function tickerFrame(view: TickerView): WireFrame {
  return wire(text<'ticker'>({ type: 'ticker', channel: 'ticker', ...view }));
}

export function standingsFrame(seq: number, time: string, rows: readonly PublicStandingsRow[]): WireFrame {
  return wire(text<'standings'>({ type: 'standings', channel: 'standings', seq, time, rows }));
}

export function feedResyncFrame(channel: 'l2', market: string, expected: number, current: number): string {
  return text<'resync_required'>({
    type: 'resync_required',
    channel,
    market,
    expected_sequence: expected,
    current_sequence: current,
    reason: 'market data lagged; resubscribe for a fresh snapshot',
  });
}

export function feedUnsubscribedFrame(channel: 'l2' | 'ticker' | 'standings', market: string | null): string {
  return text<'unsubscribed'>({ type: 'unsubscribed', channel, market });
}
