// One market's price levels from the conflated l2 channel: a snapshot, then updates applied strictly in
// sequence, each carrying the levels that changed with their absolute values (quantity 0: gone). A
// skipped sequence is a gap: the caller resubscribes. Pure (no DOM), unit-tested outside the browser.
import type { Side } from './api-types.ts';
import type { L2Level, L2SnapshotMessage, L2UpdateMessage } from './server-messages.ts';

export type L2Outcome = 'applied' | 'stale' | 'gap' | 'not_ready';

export class L2Book {
  readonly market: string;
  sequence = 0;
  ready = false;
  private readonly bids = new Map<number, L2Level>();
  private readonly asks = new Map<number, L2Level>();

  constructor(market: string) {
    this.market = market;
  }

  loadSnapshot(snapshot: L2SnapshotMessage): void {
    this.bids.clear();
    this.asks.clear();
    for (const l of snapshot.bids) this.bids.set(l.price, l);
    for (const l of snapshot.asks) this.asks.set(l.price, l);
    this.sequence = snapshot.sequence;
    this.ready = true;
  }

  applyUpdate(update: L2UpdateMessage): L2Outcome {
    if (!this.ready) return 'not_ready';
    if (update.sequence <= this.sequence) return 'stale';
    if (update.sequence !== this.sequence + 1) return 'gap';
    for (const l of update.bids) setLevel(this.bids, l);
    for (const l of update.asks) setLevel(this.asks, l);
    this.sequence = update.sequence;
    return 'applied';
  }

  invalidate(): void {
    this.ready = false;
  }

  /** Levels of one side, best first. */
  levels(side: Side): L2Level[] {
    const levels = [...(side === 'BUY' ? this.bids : this.asks).values()];
    return levels.sort((a, b) => (side === 'BUY' ? b.price - a.price : a.price - b.price));
  }

  get orderCount(): number {
    let n = 0;
    for (const l of this.bids.values()) n += l.orders;
    for (const l of this.asks.values()) n += l.orders;
    return n;
  }
}

function setLevel(side: Map<number, L2Level>, level: L2Level): void {
  if (level.quantity === 0) side.delete(level.price);
  else side.set(level.price, level);
}
