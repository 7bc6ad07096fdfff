// The l2 feed against the l3 book it summarizes: over random sessions, a client that loads an l2
// snapshot (at any moment, for full depth or for depth N) and applies every later conflated update
// holds, after each update, exactly the price levels of the l3 book at that moment (quantity summed,
// orders counted), cut to its depth. And a missing update is detected by its sequence.
import { expect } from 'chai';
import fc from 'fast-check';
import type { L3Delta } from '../../src/projections/market-data.ts';
import type { OrderBook } from '../../src/projections/order-book.ts';
import { L2Replica, type L2Level } from '../../src/server/feeds/l2-book.ts';
import { L2Conflator } from '../../src/server/feeds/l2-conflator.ts';
import { actionArb, MARKETS, Simulation, type Action } from '../core/simulation.ts';

const DEPTHS = [null, 1, 3] as const;

/** The l3 book's levels, best first, cut to `depth`. */
function aggregate(book: OrderBook | undefined, depth: number | null): { bids: L2Level[]; asks: L2Level[] } {
  const side = (levels: Iterable<{ price: number; total: number; count: number }> | undefined): L2Level[] => {
    const out: L2Level[] = [];
    if (levels === undefined) return out;
    for (const l of levels) {
      if (depth !== null && out.length >= depth) break;
      out.push({ price: l.price, quantity: l.total, orders: l.count });
    }
    return out;
  };
  return { bids: side(book?.bids.levelsBestFirst()), asks: side(book?.asks.levelsBestFirst()) };
}

type Step = { kind: 'action'; action: Action } | { kind: 'tick' } | { kind: 'join'; market: number; depth: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 20, arbitrary: actionArb.map((action) => ({ kind: 'action' as const, action })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'tick' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('join' as const), market: fc.nat(MARKETS.length - 1), depth: fc.nat(DEPTHS.length - 1) }) },
);

describe('l2 feed: conflated price levels', () => {
  it('snapshot plus updates equals the aggregated l3 book at every update, for full depth and depth N', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 20, maxLength: 300 }), (steps) => {
        const sim = new Simulation();
        const conflators = new Map<string, L2Conflator>(MARKETS.map((m) => [m, new L2Conflator()]));
        sim.exchange.state.marketData.deltas$.subscribe((d: L3Delta) => conflators.get(d.market)?.apply(d.events));
        const replicas: { market: string; depth: number | null; replica: L2Replica }[] = [];
        // One subscriber of every depth from the start, more joining at random moments.
        for (const market of MARKETS) for (const depth of DEPTHS) replicas.push(join(conflators, market, depth));
        for (const step of steps) {
          if (step.kind === 'action') sim.step(step.action);
          else if (step.kind === 'join') replicas.push(join(conflators, MARKETS[step.market] as string, DEPTHS[step.depth] ?? null));
          else {
            for (const [market, conflator] of conflators) {
              const updates = conflator.tick();
              if (updates === null) continue;
              for (const r of replicas) {
                if (r.market !== market) continue;
                const levels = updates.get(r.depth);
                expect(levels, `an update for depth ${r.depth}`).to.not.equal(undefined);
                expect(r.replica.apply({ sequence: conflator.sequence, ...(levels as { bids: L2Level[]; asks: L2Level[] }) })).to.equal(true);
              }
            }
            for (const r of replicas) {
              expect(r.replica.view(), `${r.market} depth ${r.depth}`).to.deep.equal(aggregate(sim.exchange.state.books.book(r.market), r.depth));
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('an update carries only the levels that changed, with quantity 0 for a level that is gone', () => {
    const c = new L2Conflator();
    const order = (id: string, side: 'BUY' | 'SELL', price: number, remaining: number) => ({ order_id: id, side, price, remaining, created_at: '2026-01-01T00:00:00.000000Z' });
    c.apply([{ kind: 'order_added', order: order('a', 'BUY', 100, 5) }, { kind: 'order_added', order: order('b', 'BUY', 99, 2) }, { kind: 'order_added', order: order('c', 'SELL', 101, 1) }]);
    expect(c.tick()?.get(null)).to.deep.equal({
      bids: [{ price: 100, quantity: 5, orders: 1 }, { price: 99, quantity: 2, orders: 1 }],
      asks: [{ price: 101, quantity: 1, orders: 1 }],
    });
    c.apply([{ kind: 'order_removed', order_id: 'b', side: 'BUY', price: 99 }, { kind: 'order_updated', order: order('a', 'BUY', 100, 3) }]);
    expect(c.tick()?.get(null)).to.deep.equal({ bids: [{ price: 100, quantity: 3, orders: 1 }, { price: 99, quantity: 0, orders: 0 }], asks: [] });
    expect(c.tick(), 'nothing changed: no update').to.equal(null);
    expect(c.sequence).to.equal(2);
  });

  it('detects a gap: an update whose sequence is not the next one is refused', () => {
    const r = new L2Replica();
    r.load({ sequence: 4, bids: [{ price: 100, quantity: 1, orders: 1 }], asks: [] });
    expect(r.apply({ sequence: 6, bids: [{ price: 100, quantity: 0, orders: 0 }], asks: [] })).to.equal(false);
    expect(r.view().bids).to.have.length(1);
    expect(r.apply({ sequence: 5, bids: [], asks: [] })).to.equal(true);
  });
});

function join(conflators: Map<string, L2Conflator>, market: string, depth: number | null): { market: string; depth: number | null; replica: L2Replica } {
  const replica = new L2Replica();
  replica.load((conflators.get(market) as L2Conflator).snapshot(depth));
  return { market, depth, replica };
}
