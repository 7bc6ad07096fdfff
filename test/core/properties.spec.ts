// Invariants over long random sessions from several traders in several markets.
import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalJson } from '../../src/events/canonical.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { InMemoryEventLog } from '../../src/events/in-memory-log.ts';
import { restoreSnapshot, takeSnapshot } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { actionArb, Simulation } from './simulation.ts';
import { rerun } from '../../replay/audit.ts';
import { rows } from '../../replay/views.ts';
import { HistoryIndex } from '../../src/projections/history/history-index.ts';

function eventsOf(exchange: Exchange): readonly ExchangeEvent[] {
  return (exchange.log as InMemoryEventLog).all();
}

describe('core: properties of random sessions', function () {
  this.timeout(120_000);

  it('keeps every invariant after every command', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 400 }), (actions) => {
        const sim = new Simulation();
        for (const a of actions) {
          sim.step(a);
          sim.checkInvariants();
        }
      }),
      { numRuns: 60, seed: 20261122 },
    );
  });

  it('folding the recorded events from scratch gives the same state hash as the live run', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 400 }), (actions) => {
        const sim = new Simulation();
        for (const a of actions) sim.step(a);
        const replica = new Exchange();
        for (const e of eventsOf(sim.exchange)) replica.fold(JSON.parse(JSON.stringify(e)) as ExchangeEvent);
        expect(stateHash(replica.state)).to.equal(stateHash(sim.exchange.state));
      }),
      { numRuns: 40, seed: 7 },
    );
  });

  it('running the same commands again gives byte-identical events', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 300 }), (actions) => {
        const sim = new Simulation();
        for (const a of actions) sim.step(a);
        const again = new Exchange();
        for (const c of sim.commands) {
          try {
            again.execute(c);
          } catch {
            // refused again, as it was the first time
          }
        }
        const first = eventsOf(sim.exchange).map(canonicalJson);
        const second = eventsOf(again).map(canonicalJson);
        expect(second).to.deep.equal(first);
      }),
      { numRuns: 30, seed: 11 },
    );
  });

  it('an audit re-runs every recorded command of a session mixing every order option and gets the same events', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 300 }), (actions) => {
        const sim = new Simulation();
        for (const a of actions) sim.step(a);
        const auditor = new Exchange();
        for (const e of eventsOf(sim.exchange)) rerun(auditor, JSON.parse(JSON.stringify(e)) as ExchangeEvent);
        expect(stateHash(auditor.state)).to.equal(stateHash(sim.exchange.state));
      }),
      { numRuns: 30, seed: 5 },
    );
  });

  it('a snapshot plus the events after it gives the same state as the whole log', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 20, maxLength: 300 }), fc.double({ min: 0, max: 1, noNaN: true }), (actions, cut) => {
        const sim = new Simulation();
        for (const a of actions) sim.step(a);
        const events = eventsOf(sim.exchange);
        const at = Math.floor(events.length * cut);
        const prefix = new Exchange();
        for (const e of events.slice(0, at)) prefix.fold(e);
        const snapshot = JSON.parse(JSON.stringify(takeSnapshot(prefix.state))) as ReturnType<typeof takeSnapshot>;
        const restored = new Exchange();
        restoreSnapshot(restored.state, snapshot);
        expect(stateHash(restored.state)).to.equal(stateHash(prefix.state));
        // What decide reads by interned index (the overflow trial, the risk check) was restored as well.
        for (const [trader, records] of restored.state.positions.traders()) {
          for (const [market, record] of records) {
            const t = restored.state.traderNames.indexOf(trader);
            const m = restored.state.marketNames.indexOf(market);
            expect(restored.state.positions.valuesAt(t, m), `restored position of ${trader} in ${market} by index`).to.equal(record.values);
            expect(restored.state.positions.netAt(t, m)).to.equal(record.values.net);
          }
        }
        for (const e of events.slice(at)) restored.fold(e);
        expect(stateHash(restored.state)).to.equal(stateHash(sim.exchange.state));
      }),
      { numRuns: 30, seed: 3 },
    );
  });

  it('a window of one finished order, with client order ids looked up in the history, decides every command as a window of thousands does', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 400 }), (actions) => {
        const wide = new Simulation();
        const narrow = new Simulation({ recentOrders: 1, lookUpHistory: true });
        for (const a of actions) {
          wide.step(a);
          narrow.step(a);
          narrow.checkInvariants();
        }
        expect(eventsOf(narrow.exchange).map(canonicalJson)).to.deep.equal(eventsOf(wide.exchange).map(canonicalJson));
        expect(stateHash(narrow.exchange.state)).to.equal(stateHash(wide.exchange.state));
        // The narrow books really let go of orders (the history answered for them).
        expect(narrow.exchange.state.books.orders.finishedCount).to.be.at.most(1 + 400);
      }),
      { numRuns: 40, seed: 29 },
    );
  });

  it('books that keep every order (the in-memory backend) decide as the window does, find every order since the last reset, and leave the history index no orders to hold', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 300 }), (actions) => {
        const windowed = new Simulation({ recentOrders: 1, lookUpHistory: true });
        const all = new Simulation({ recentOrders: Number.POSITIVE_INFINITY });
        for (const a of actions) {
          windowed.step(a);
          all.step(a);
          all.checkInvariants();
        }
        expect(eventsOf(all.exchange).map(canonicalJson)).to.deep.equal(eventsOf(windowed.exchange).map(canonicalJson));
        expect(stateHash(all.exchange.state)).to.equal(stateHash(windowed.exchange.state));
        const events = eventsOf(all.exchange);
        let since = 0;
        events.forEach((e, i) => {
          if (e.type === 'TradingReset') since = i + 1;
        });
        const books = all.exchange.state.books;
        for (const e of events.slice(since)) if (e.type === 'OrderSubmitted') expect(books.anyOrder(e.data.order.id), e.data.order.id).to.not.equal(undefined);
        expect(all.history.orders.count, 'the books hold the order history themselves').to.equal(0);
      }),
      { numRuns: 30, seed: 31 },
    );
  });

  it('without the history lookup, a window of one finished order would accept a repeated client order id (the lookup is what keeps them unique)', () => {
    const repeat = (cid: number) => ({ kind: 'submit' as const, trader: 0, market: 0, buy: true, price: 90, quantity: 1, type: 'LIMIT' as const, tif: 'IOC' as const, stp: 'NONE' as const, cid });
    const blind = new Simulation({ recentOrders: 1 });
    const seeing = new Simulation({ recentOrders: 1, lookUpHistory: true });
    for (const a of [repeat(1), repeat(2), repeat(3), repeat(1)]) {
      blind.step(a);
      seeing.step(a);
    }
    const submitted = (sim: Simulation) => eventsOf(sim.exchange).filter((e) => e.type === 'OrderSubmitted').length;
    expect(submitted(seeing)).to.equal(3);
    expect(submitted(blind)).to.equal(4);
  });

  it('with random rules, the live leaderboard equals replay state at every seq, and the fees paid are the fees of the fills', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 50, maxLength: 400 }), (actions) => {
        const sim = new Simulation();
        // The live leaderboard after every event, as a client polling it would read it.
        const live = new Map<number, string>();
        sim.exchange.state.events$.subscribe((e) => live.set(e.seq, canonicalJson(sim.exchange.state.leaderboard.at(e.seq))));
        for (const a of actions) sim.step(a);
        // replay state: the recorded events, as read from an export, folded through the same projections.
        const replayed = new Exchange();
        const history = new HistoryIndex();
        history.follow(replayed.state);
        let feesInFills = 0n;
        for (const e of eventsOf(sim.exchange)) {
          const event = JSON.parse(JSON.stringify(e)) as ExchangeEvent;
          replayed.fold(event);
          const seq = event.seq;
          if (live.has(seq)) expect(canonicalJson(rows(replayed.state, history, 'leaderboard')), `leaderboard at seq ${seq}`).to.equal(live.get(seq));
          if (event.type === 'TradingReset') feesInFills = 0n;
          if (event.type === 'OrderSubmitted') for (const f of event.data.fills) feesInFills += BigInt((f.maker_fee_e4 ?? 0) + (f.taker_fee_e4 ?? 0));
        }
        let paid = 0n;
        for (const [, records] of replayed.state.positions.traders()) for (const r of records.values()) paid += BigInt(r.values.fees);
        expect(paid, 'the sum of all fees paid').to.equal(feesInFills);
      }),
      { numRuns: 40, seed: 38 },
    );
  });

  it('random sessions really exercise the rules: fees and rebates charged, orders refused by a market\'s limit and cap', () => {
    const sim = new Simulation();
    const actions = fc.sample(fc.array(actionArb, { minLength: 3000, maxLength: 3000 }), { numRuns: 1, seed: 77 })[0] ?? [];
    for (const a of actions) sim.step(a);
    const fills = eventsOf(sim.exchange).flatMap((e) => (e.type === 'OrderSubmitted' ? e.data.fills : []));
    expect(fills.some((f) => (f.taker_fee_e4 ?? 0) > 0), 'a taker paid a fee').to.equal(true);
    expect(fills.some((f) => (f.maker_fee_e4 ?? 0) < 0), 'a maker received a rebate').to.equal(true);
    expect(sim.refusals.get('too_many_open_orders') ?? 0, 'orders refused by a cap').to.be.greaterThan(0);
    expect(sim.refusals.get('position_limit_exceeded') ?? 0, 'orders refused by a limit').to.be.greaterThan(0);
    expect(eventsOf(sim.exchange).some((e) => e.type === 'ApiKeyRevoked'), 'a key revoked').to.equal(true);
  });

  it('one long session of 5,000 commands holds every invariant', () => {
    const sim = new Simulation();
    const actions = fc.sample(fc.array(actionArb, { minLength: 5000, maxLength: 5000 }), { numRuns: 1, seed: 42 })[0] ?? [];
    for (const a of actions) {
      sim.step(a);
      sim.checkInvariants();
    }
    const withFills = eventsOf(sim.exchange).filter((e) => e.type === 'OrderSubmitted' && e.data.fills.length > 0).length;
    expect(withFills, 'the session really traded').to.be.greaterThan(100);
  });
});
