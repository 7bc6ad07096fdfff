// One market's l2 stream: the level book folded from l3 deltas, a per-market l2 sequence that moves by
// one per update, and for each depth that someone follows the view its subscribers were last sent, so
// an update for `depth` N says exactly which of the top N levels changed (0: a level left the top N).
import type { L3Event } from '../../projections/market-data.ts';
import { diffLevels, L2Book, type L2Level } from './l2-book.ts';

export interface L2Levels {
  readonly bids: L2Level[];
  readonly asks: L2Level[];
}

export class L2Conflator {
  readonly book = new L2Book();
  /** The sequence of the last update built (0 before the first). */
  sequence = 0;
  private readonly views = new Map<number, L2Levels>();

  apply(events: readonly L3Event[]): void {
    for (const e of events) this.book.apply(e);
  }

  /**
   * What a new subscriber starts from, at `sequence`. Full depth: the book now (every level touched
   * since the last update comes again in the next one with its absolute value, so applying it is
   * exact). Depth N: the view the current N-subscribers were last sent, since the next update is a
   * difference from that view.
   */
  snapshot(depth: number | null): L2Levels & { sequence: number } {
    if (depth === null) return { sequence: this.sequence, bids: this.book.bids.top(null), asks: this.book.asks.top(null) };
    let view = this.views.get(depth);
    if (view === undefined) {
      view = { bids: this.book.bids.top(depth), asks: this.book.asks.top(depth) };
      this.views.set(depth, view);
    }
    return { sequence: this.sequence, bids: view.bids, asks: view.asks };
  }

  /** No subscriber of `depth` is left: stop keeping its view. */
  forget(depth: number): void {
    this.views.delete(depth);
  }

  /** The next update for full depth and every followed depth, or null when nothing changed since the last. */
  tick(): Map<number | null, L2Levels> | null {
    if (!this.book.changed) return null;
    this.sequence++;
    const out = new Map<number | null, L2Levels>();
    out.set(null, this.book.takeTouched());
    for (const [depth, last] of this.views) {
      const now = { bids: this.book.bids.top(depth), asks: this.book.asks.top(depth) };
      out.set(depth, { bids: diffLevels(last.bids, now.bids), asks: diffLevels(last.asks, now.asks) });
      this.views.set(depth, now);
    }
    return out;
  }
}
