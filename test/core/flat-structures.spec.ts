// The engine's flat structures against simple reference models, over random operation sequences: the id
// index against a Map (also while it grows incrementally), a book side against sorted arrays of FIFO
// queues, a book side's price set against a sorted array, the delta ring against the list
// of every delta, the compact log against the events it was given, the string and slot columns against
// arrays.
import { expect } from 'chai';
import fc from 'fast-check';
import { CompactEvents } from '../../src/events/compact-events.ts';
import { canonicalJson } from '../../src/events/canonical.ts';
import { column, grown } from '../../src/events/grown.ts';
import { CHUNK_SLOTS, SlotColumn } from '../../src/events/slot-column.ts';
import { StringColumn } from '../../src/events/string-column.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { InMemoryEventLog } from '../../src/events/in-memory-log.ts';
import { DeltaRing, L3_ADDED, L3_REMOVED, L3_TRADE, L3_UPDATED } from '../../src/projections/delta-ring.ts';
import type { L3Delta, L3Event } from '../../src/projections/market-data.ts';
import { BookSide } from '../../src/projections/order-book.ts';
import { idHash } from '../../src/events/id-hash.ts';
import { IdIndex } from '../../src/projections/orders/id-index.ts';
import { Interner } from '../../src/events/interner.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import { parseEvent } from '../../src/events/event-schema.ts';
import type { RecordedEvent } from '../../src/events/upcasters/upcast.ts';
import { LevelStore } from '../../src/projections/orders/level-store.ts';
import { NONE, OrderStore, sideBit } from '../../src/projections/orders/order-store.ts';
import { PriceSet } from '../../src/projections/orders/price-set.ts';
import { actionArb, Simulation } from './simulation.ts';

/** Interns (true) or looks up (false) each name in an Interner and in a Map numbering names as they come; every answer agrees. */
function internAgainstMap(ops: readonly [boolean, string][]): { names: Interner; model: Map<string, number> } {
  const names = new Interner();
  const model = new Map<string, number>();
  for (const [intern, name] of ops) {
    if (intern) {
      if (!model.has(name)) model.set(name, model.size);
      expect(names.intern(name), `intern(${JSON.stringify(name)})`).to.equal(model.get(name));
    } else expect(names.indexOf(name), `indexOf(${JSON.stringify(name)})`).to.equal(model.get(name) ?? -1);
  }
  expect(names.size).to.equal(model.size);
  return { names, model };
}

describe('core: flat structures against reference models', function () {
  this.timeout(120_000);

  it('the id index finds, adds and removes as a Map does, through collisions, wrap-around and growth', () => {
    // Ids drawn from a small alphabet collide on purpose; `hash` may be forced to a few values so probe
    // runs get long and wrap around the table's end.
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), id: fc.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom('a', 'b', '0', '-', 'é') }) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('get' as const), id: fc.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom('a', 'b', '0', '-', 'é') }) }) },
    );
    fc.assert(
      // Sessions up to 3,000 operations long (fast-check's default size stops near ten), so the table
      // grows past its first 1,024 entries in some of them.
      fc.property(fc.array(op, { maxLength: 3000, size: 'xlarge' }), fc.boolean(), (ops, crowd) => {
        const ids: string[] = [];
        const hashes: number[] = [];
        const keys = { id: (slot: number): string => ids[slot] as string };
        const index = new IdIndex(keys);
        const model = new Map<string, number>();
        // Crowded: every hash one of 8 values (the table masks the low bits), so runs collide and wrap.
        const hashOf = (id: string): number => (crowd ? Math.imul(idHash(id) & 7, 0x9e3779b1) : idHash(id));
        for (const o of ops) {
          if (o.kind === 'add') {
            if (model.has(o.id)) continue;
            const slot = ids.length;
            ids.push(o.id);
            hashes.push(hashOf(o.id));
            index.add(slot, hashes[slot] as number);
            model.set(o.id, slot);
          } else if (o.kind === 'remove') {
            if (model.size === 0) continue;
            const id = [...model.keys()][o.pick % model.size] as string;
            const slot = model.get(id) as number;
            index.remove(slot, hashes[slot] as number);
            model.delete(id);
          } else {
            expect(index.get(o.id, hashOf(o.id))).to.equal(model.get(o.id) ?? -1);
          }
          expect(index.size).to.equal(model.size);
        }
        for (const [id, slot] of model) expect(index.get(id, hashOf(id))).to.equal(slot);
      }),
      { numRuns: 150, seed: 15 },
    );
  });

  it('the id index answers as a Map does while it grows, its entries moving a few at a time', () => {
    // Sessions filled past a growth (at 512 or at 1,024 entries) that go on while its entries move (1,024
    // or 2,048 old positions, 8 an operation): adds, removes (of moved and unmoved entries alike) and
    // lookups, hits and misses.
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'add' as const }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('get' as const), pick: fc.nat(), miss: fc.boolean() }) },
    );
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 513, max: 600 }), fc.integer({ min: 1025, max: 1150 })), fc.array(op, { minLength: 200, maxLength: 1500 }), fc.boolean(), (prefill, ops, crowd) => {
        const ids: string[] = [];
        const hashes: number[] = [];
        // The order store's column throws for a slot it never gave out, as this does.
        const index = new IdIndex({
          id: (slot: number): string => {
            if (!(slot >= 0 && slot < ids.length)) throw new Error(`no slot ${slot}`);
            return ids[slot] as string;
          },
        });
        const model = new Map<string, number>();
        const hashOf = (id: string): number => (crowd ? Math.imul(idHash(id) & 7, 0x9e3779b1) : idHash(id));
        // Adds and removes since the growth under way began: every one moves entries, so a growth is done
        // within (old positions) / 8 of them, at most 2,048 / 8 here.
        let whileGrowing = 0;
        const counted = (): void => {
          whileGrowing = index.growing ? whileGrowing + 1 : 0;
          expect(whileGrowing).to.be.at.most(256);
        };
        const add = (): void => {
          const id = `order-${ids.length}`;
          const slot = ids.length;
          ids.push(id);
          hashes.push(hashOf(id));
          index.add(slot, hashes[slot] as number);
          model.set(id, slot);
          counted();
        };
        let grew = false;
        for (let i = 0; i < prefill; i++) {
          add();
          grew ||= index.growing;
        }
        for (const o of ops) {
          if (o.kind === 'add') add();
          else if (o.kind === 'remove') {
            if (model.size === 0) continue;
            const id = [...model.keys()][o.pick % model.size] as string;
            const slot = model.get(id) as number;
            index.remove(slot, hashes[slot] as number);
            model.delete(id);
            counted();
          } else {
            const id = o.miss ? `absent-${o.pick}` : `order-${o.pick % Math.max(1, ids.length)}`;
            expect(index.get(id, hashOf(id))).to.equal(model.get(id) ?? -1);
          }
          grew ||= index.growing;
          expect(index.size).to.equal(model.size);
        }
        expect(grew, 'the session crossed a growth').to.equal(true);
        for (const [id, slot] of model) expect(index.get(id, hashOf(id))).to.equal(slot);
        // However it ends, the growth finishes within a bounded number of further operations.
        for (let i = 0; i < 1024 && index.growing; i++) {
          add();
          const id = `order-${ids.length - 1}`;
          index.remove(model.get(id) as number, hashes[model.get(id) as number] as number);
          model.delete(id);
        }
        expect(index.growing).to.equal(false);
        for (const [id, slot] of model) expect(index.get(id, hashOf(id))).to.equal(slot);
      }),
      { numRuns: 60, seed: 26 },
    );
  });

  it('a book side keeps price levels in order and FIFO queues within them, as sorted arrays of queues do', () => {
    const op = fc.oneof(
      // Prices from a narrow range (orders queue at a level) and a wide one (levels enough to split the
      // price set's blocks of 64).
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('push' as const), price: fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 3000 })), remaining: fc.integer({ min: 1, max: 9 }) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('reduce' as const), pick: fc.nat(), to: fc.integer({ min: 1, max: 9 }) }) },
    );
    fc.assert(
      fc.property(fc.constantFrom('BUY' as const, 'SELL' as const), fc.array(op, { maxLength: 600, size: 'max' }), (side, ops) => {
        const orders = new OrderStore(new Interner(), new Interner());
        const levels = new LevelStore();
        const book = new BookSide(side, orders, levels);
        // Reference: price -> queue of [slot, remaining]; best first is highest for bids, lowest for asks.
        const model = new Map<number, [number, number][]>();
        const resting: number[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'push') {
            const slot = orders.add(`o${n++}`, 0, 0, sideBit(side), o.price, o.remaining, o.remaining, 't', null, n);
            book.push(slot);
            let queue = model.get(o.price);
            if (queue === undefined) model.set(o.price, (queue = []));
            queue.push([slot, o.remaining]);
            resting.push(slot);
          } else if (resting.length > 0) {
            const k = o.pick % resting.length;
            const slot = resting[k] as number;
            const queue = model.get(orders.price(slot)) as [number, number][];
            const at = queue.findIndex(([s]) => s === slot);
            if (o.kind === 'remove') {
              book.remove(slot);
              queue.splice(at, 1);
              if (queue.length === 0) model.delete(orders.price(slot));
              resting.splice(k, 1);
            } else {
              const to = Math.min(o.to, orders.remaining(slot));
              book.reduce(slot, to);
              (queue[at] as [number, number])[1] = to;
            }
          }
          book.checkConsistency();
        }
        const prices = [...model.keys()].sort((a, b) => (side === 'BUY' ? b - a : a - b));
        expect([...book.levelsBestFirst()].map((l) => [l.price, l.total, l.count])).to.deep.equal(prices.map((p) => {
          const queue = model.get(p) as [number, number][];
          return [p, queue.reduce((t, [, r]) => t + r, 0), queue.length];
        }));
        expect([...book.orderSlots()]).to.deep.equal(prices.flatMap((p) => (model.get(p) as [number, number][]).map(([s]) => s)));
        expect(book.bestPrice).to.equal(prices[0] ?? null);
        // Walking from the best level through levelAfter visits every level once, in order.
        const walked: number[] = [];
        for (let l = book.best; l !== NONE; l = book.levelAfter(l)) walked.push(levels.price(l));
        expect(walked).to.deep.equal(prices);
      }),
      { numRuns: 120, seed: 16 },
    );
  });

  it('a price set adds, removes and finds neighbours as a sorted array does, through block splits and merges', () => {
    // Blocks of 8 and 9 prices split and merge every few operations; 64 is the book's. Prices are drawn
    // from a narrow range (many repeats, so deletes find prices) or a wide one (a set of hundreds).
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), price: fc.integer({ min: -40, max: 400 }) }) },
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('query' as const), price: fc.oneof(fc.integer({ min: -50, max: 410 }), fc.integer({ min: -50, max: 410 }).map((p) => p + 0.5)) }) },
    );
    const below = (sorted: number[], p: number): number => {
      for (let i = sorted.length - 1; i >= 0; i--) if ((sorted[i] as number) < p) return sorted[i] as number;
      return Number.NaN;
    };
    const above = (sorted: number[], p: number): number => sorted.find((x) => x > p) ?? Number.NaN;
    fc.assert(
      // size 'max': fast-check's default size stops sessions near a hundred operations, too few to fill
      // a block of 64 or to run one low enough to merge.
      fc.property(fc.constantFrom(8, 9, 64), fc.array(op, { minLength: 50, maxLength: 1500, size: 'max' }), (blockSize, ops) => {
        const set = new PriceSet(blockSize);
        let model: number[] = [];
        for (const o of ops) {
          if (o.kind === 'add') {
            if (model.includes(o.price)) expect(() => set.add(o.price)).to.throw('already in the set');
            else {
              set.add(o.price);
              model = [...model, o.price].sort((a, b) => a - b);
            }
          } else if (o.kind === 'delete') {
            if (model.length === 0) {
              expect(() => set.delete(7)).to.throw('not in the set');
              continue;
            }
            const price = model[o.pick % model.length] as number;
            set.delete(price);
            model = model.filter((x) => x !== price);
            expect(() => set.delete(price)).to.throw('not in the set');
          } else {
            expect(set.above(o.price), `above ${o.price}`).to.deep.equal(above(model, o.price));
            expect(set.below(o.price), `below ${o.price}`).to.deep.equal(below(model, o.price));
            expect(set.has(o.price), `has ${o.price}`).to.equal(model.includes(o.price));
          }
          expect(set.size).to.equal(model.length);
          expect(set.min).to.deep.equal(model[0] ?? Number.NaN);
          expect(set.max).to.deep.equal(model[model.length - 1] ?? Number.NaN);
        }
        expect([...set.values()]).to.deep.equal(model);
        expect([...set.descending()]).to.deep.equal([...model].reverse());
        // A price that is not finite is refused, and nothing changes.
        for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expect(() => set.add(bad)).to.throw(RangeError);
        expect([...set.values()]).to.deep.equal(model);
        // Every member's neighbours, and the points between members.
        for (const p of model) {
          expect(set.has(p)).to.equal(true);
          expect(set.above(p)).to.deep.equal(above(model, p));
          expect(set.below(p)).to.deep.equal(below(model, p));
          expect(set.above(p - 0.5)).to.equal(p);
          expect(set.below(p + 0.5)).to.equal(p);
        }
      }),
      { numRuns: 60, seed: 28 },
    );
  });

  it('a price set of a whole book side (tens of thousands of prices, in order, then thinned out) keeps every neighbour', () => {
    expect(() => new PriceSet(7)).to.throw(RangeError);
    // The book's block size, past hundreds of splits: prices arrive best first (as a side fills up from
    // its top), then every other one goes, then the rest but every tenth (merges of low blocks).
    const set = new PriceSet();
    const n = 40_000;
    for (let i = 0; i < n; i++) set.add(100_000 - i);
    for (let i = 0; i < n; i += 2) set.delete(100_000 - i);
    for (let i = 1; i < n; i += 2) if (i % 10 !== 1) set.delete(100_000 - i);
    const model = Array.from({ length: n / 10 }, (_, k) => 100_000 - (n - 9) + 10 * k);
    expect([...set.values()]).to.deep.equal(model);
    expect(set.size).to.equal(model.length);
    // Thinned to a tenth, the blocks merged as they ran low: on average at least 8 prices a block (the
    // splits left ~32, the thinning ~3 before merging).
    expect(set.blockCount).to.be.at.most(model.length / 8);
    for (let k = 0; k < model.length; k++) {
      const p = model[k] as number;
      expect(set.above(p)).to.deep.equal(model[k + 1] ?? Number.NaN);
      expect(set.below(p)).to.deep.equal(model[k - 1] ?? Number.NaN);
      expect(set.above(p - 5)).to.equal(p);
      expect(set.below(p + 5)).to.equal(p);
    }
  });

  it('the delta ring gives back exactly the deltas after a sequence while it holds them all, else null', () => {
    const eventArb = fc.record({ kind: fc.constantFrom(L3_ADDED, L3_UPDATED, L3_REMOVED, L3_TRADE), side: fc.integer({ min: 0, max: 1 }), price: fc.integer({ min: 1, max: 1000 }), quantity: fc.integer({ min: 1, max: 50 }), a: fc.uuid(), b: fc.uuid() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.array(eventArb, { minLength: 1, maxLength: 120 }), { maxLength: 150 }), fc.array(fc.nat(), { maxLength: 20 }), (capacity, deltas, asks) => {
        const ring = new DeltaRing('BTC-USD', capacity);
        const all: L3Delta[] = [];
        for (const [i, events] of deltas.entries()) {
          ring.begin();
          const built: L3Event[] = [];
          for (const e of events) {
            ring.event(e.kind, e.side, e.price, e.quantity, e.a, e.kind === L3_REMOVED ? undefined : e.b);
            const side = e.side === 0 ? ('BUY' as const) : ('SELL' as const);
            if (e.kind === L3_ADDED || e.kind === L3_UPDATED) built.push({ kind: e.kind === L3_ADDED ? 'order_added' : 'order_updated', order: { order_id: e.a, side, price: e.price, remaining: e.quantity, created_at: e.b } });
            else if (e.kind === L3_REMOVED) built.push({ kind: 'order_removed', order_id: e.a, side, price: e.price });
            else built.push({ kind: 'trade', maker_order_id: e.a, taker_order_id: e.b, price: e.price, quantity: e.quantity });
          }
          ring.end(i + 1);
          all.push({ type: 'delta', channel: 'l3', market: 'BTC-USD', sequence: i + 1, events: built });
        }
        const current = all.length;
        for (const ask of [...asks, 0, current, current + 1, -1]) {
          const after = ask > current + 1 ? ask % (current + 2) : ask;
          const got = ring.after(after, current);
          if (after < 0 || after > current) expect(got).to.equal(null);
          // Whatever it answers is exactly the deltas after that sequence, never more than it may hold.
          if (got !== null) {
            expect(got).to.deep.equal(all.slice(after));
            expect(all.length - after).to.be.at.most(capacity);
          }
        }
        // It holds at least the newest deltas that fit its room (capacity deltas, 4 events a delta).
        let fit = 0;
        let events = 0;
        while (fit < Math.min(capacity, all.length) && events + (all[all.length - 1 - fit] as L3Delta).events.length <= Math.max(16, capacity * 4)) {
          events += (all[all.length - 1 - fit] as L3Delta).events.length;
          fit++;
        }
        if (current > 0) expect(ring.after(current - Math.max(1, fit), current), `the newest ${Math.max(1, fit)} deltas`).to.deep.equal(all.slice(current - Math.max(1, fit)));
      }),
      { numRuns: 150, seed: 17 },
    );
  });

  it('the in-memory log reads back every event of random sessions member for member, in order', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 20, maxLength: 300 }), (actions) => {
        const sim = new Simulation();
        const given: ExchangeEvent[] = [];
        const sub = sim.exchange.state.events$.subscribe((e) => given.push(e));
        for (const a of actions) sim.step(a);
        sub.unsubscribe();
        const log = sim.exchange.log as InMemoryEventLog;
        const read = log.all().slice(-given.length);
        // JSON text, so member order counts too: an export of the log must not change shape.
        expect(read.map((e) => JSON.stringify(e))).to.deep.equal(given.map((e) => JSON.stringify(e)));
        expect([...log.read(log.headSeq - 3)].map((e) => e.seq)).to.deep.equal([log.headSeq - 2, log.headSeq - 1, log.headSeq].filter((s) => s > 0));
      }),
      { numRuns: 40, seed: 18 },
    );
  });

  it('the compact store keeps events of older schema versions and unusual shapes as given, and reads current ones back in the order execute builds them', () => {
    const events = new CompactEvents();
    const v1 = { seq: 1, time: 't1', type: 'OrderSubmitted', data: { order: { id: 'a', trader_id: 't', market: 'M-X', side: 'BUY', price: 5, quantity: 1 }, fills: [], remaining: 1 } };
    const stc = { seq: 2, time: 't2', type: 'OrderSubmitted', v: 3, data: { order: { id: 'b', trader_id: 't', market: 'M-X', side: 'SELL', price: 5, quantity: 1, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'CANCEL_MAKER', client_order_id: null }, fills: [], self_trade_canceled: [{ order_id: 'a', side: 'BUY', price: 5, remaining: 1, after_fills: 0 }], remaining: 1, status: 'open' } };
    const market = { seq: 3, time: 't3', type: 'OrderSubmitted', data: { order: { id: 'c', trader_id: 't', market: 'M-X', side: 'BUY', price: null, quantity: 3, type: 'MARKET', time_in_force: 'IOC', self_trade_prevention: 'NONE', client_order_id: 'cid' }, fills: [{ fill_id: 'f', maker_order_id: 'b', maker_trader_id: 'u', price: 5, quantity: 1, maker_remaining: 0 }], self_trade_canceled: [], remaining: 0, status: 'canceled' }, v: 3 };
    for (const e of [v1, stc, market]) events.push(e as unknown as ExchangeEvent);
    expect([0, 1, 2].map((i) => JSON.stringify(events.at(i)))).to.deep.equal([v1, stc, market].map((e) => JSON.stringify(e)));
    expect(() => events.at(3)).to.throw(RangeError);
  });

  it('the compact store serves what was appended: events of another member order with the same canonical JSON, a half-written push leaving nothing behind', () => {
    const events = new CompactEvents();
    // Members in another order than execute's (as zod or a raw log line may give them).
    const reordered = { v: 3, seq: 1, type: 'OrderAmended', time: '2026-11-26T10:00:00.000001Z', data: { remaining: 1, previous_remaining: 2, price: 5, market: 'M-X', side: 'BUY', trader_id: 't', order_id: 'a' } };
    events.push(reordered as unknown as ExchangeEvent);
    expect(canonicalJson(events.at(0))).to.equal(canonicalJson(reordered));
    const started = { seq: 2, time: 't2', type: 'MarketPatched', v: 3, data: { market_id: 'M-X', changes: { enabled: true } } };
    events.push(started as unknown as ExchangeEvent);
    expect(JSON.stringify(events.at(1))).to.equal(JSON.stringify(started));
    // A push that throws after writing part of its slot (a fill without its maker's trader), then a kept
    // event in the same place: read back as kept.
    const broken = { seq: 3, time: 't3', type: 'OrderSubmitted', v: 3, data: { order: { id: 'c', trader_id: 't', market: 'M-X', side: 'BUY', price: 5, quantity: 1, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null }, fills: [{ fill_id: 'f', maker_order_id: 'b', maker_trader_id: undefined, price: 5, quantity: 1, maker_remaining: 0 }], self_trade_canceled: [], remaining: 0, status: 'filled' } };
    expect(() => events.push(broken as unknown as ExchangeEvent)).to.throw();
    const next = { seq: 3, time: 't3', type: 'TradingStarted', v: 3, data: {} };
    events.push(next as unknown as ExchangeEvent);
    expect(events.length).to.equal(3);
    expect(JSON.stringify(events.at(2))).to.equal(JSON.stringify(next));
  });

  it('the compact store packs traders and markets as numbers, and keeps whole the events past what the packing holds', () => {
    const events = new CompactEvents();
    const given: ExchangeEvent[] = [];
    // 1,100 markets: past the 1,024 the packing holds, events are kept as objects; reads are the same.
    for (let i = 0; i < 2200; i++) {
      const market = `M${i % 1100}-X`;
      const time = `2026-11-25T21:${String(10 + (i % 50)).padStart(2, '0')}:00.${String(i).padStart(6, '0')}Z`;
      const e =
        i % 2 === 0
          ? { seq: i + 1, time, type: 'OrderCanceled', data: { order_id: `o${i}`, trader_id: `t${i % 7}`, market, side: 'SELL', price: i, remaining: 1 }, v: 3 }
          : { seq: i + 1, time, type: 'OrderSubmitted', data: { order: { id: `o${i}`, trader_id: `t${i % 5}`, market, side: 'BUY', price: i, quantity: 3, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: i % 3 === 0 ? `c${i}` : null }, fills: [{ fill_id: `f${i}`, maker_order_id: `o${i - 1}`, maker_trader_id: `t${i % 11}`, price: i, quantity: 1, maker_remaining: 0 }, { fill_id: `g${i}`, maker_order_id: `o${i - 3}`, maker_trader_id: `t${i % 13}`, price: i, quantity: 1, maker_remaining: 2 }], self_trade_canceled: [], remaining: 1, status: 'open' }, v: 3 };
      given.push(e as unknown as ExchangeEvent);
      events.push(e as unknown as ExchangeEvent);
    }
    expect(events.length).to.equal(2200);
    expect(given.map((_, i) => JSON.stringify(events.at(i)))).to.deep.equal(given.map((e) => JSON.stringify(e)));
    // An in-memory log takes the interners it is given only while empty: one that holds events keeps
    // the names it packed them with.
    const log = new InMemoryEventLog();
    log.shareNames(new Interner(), new Interner());
    for (const e of given.slice(0, 10)) log.append(e);
    const other = new Interner();
    other.intern('someone else');
    log.shareNames(other, other);
    expect(log.all().map((e) => JSON.stringify(e))).to.deep.equal(given.slice(0, 10).map((e) => JSON.stringify(e)));
  });

  it('the flat stores give back every admission time as given, canonical ones as numbers and any other text as it came', () => {
    const canonical = fc.integer({ min: 1_700_000_000_000_000, max: 1_900_000_000_000_000 }).map((m) => new Date(Math.floor(m / 1000)).toISOString().slice(0, 23) + String(m % 1000).padStart(3, '0') + 'Z');
    const odd = fc.oneof(fc.string({ maxLength: 30 }), canonical.map((t) => t.slice(0, 23) + 'Z'), canonical.map((t) => t.replace('T', ' ')));
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 4, arbitrary: canonical }, { weight: 1, arbitrary: odd }), { minLength: 1, maxLength: 300 }), fc.nat(), (times, cut) => {
        const orders = new OrderStore(new Interner(), new Interner());
        const events = new CompactEvents();
        const added = (i: number, time: string) => orders.add(`o${i}`, 0, 0, 0, 1, 1, 1, time, null, i + 1);
        // Half, a reset, then all of them: the times of a reset store are forgotten with it.
        for (const [i, time] of times.slice(0, cut % times.length).entries()) added(i, time);
        orders.clear();
        for (const [i, time] of times.entries()) {
          expect(added(i, time)).to.equal(i);
          events.push({ seq: i + 1, time, type: 'OrderCanceled', v: 3, data: { order_id: `o${i}`, trader_id: 't', market: 'M-X', side: 'BUY', price: 1, remaining: 1 } } as ExchangeEvent);
        }
        // Read back out of order too: the last time read is remembered.
        for (const i of [...times.keys(), ...[...times.keys()].reverse()]) {
          expect(orders.createdAt(i)).to.equal(times[i]);
          expect(events.at(i).time).to.equal(times[i]);
        }
      }),
      { numRuns: 100, seed: 43 },
    );
  });

  it('a typed column keeps its values as it grows, copied while small, in place once large', () => {
    let col = column(Float64Array, 4);
    for (let i = 0; i < 4; i++) col[i] = i + 0.5;
    let length = 4;
    const views = new Set<Float64Array>();
    while (length < 1 << 19) {
      length *= 2;
      col = grown(col, length);
      col[length - 1] = length;
      if (length * 8 > 1 << 21) views.add(col);
    }
    expect(col.length).to.equal(length);
    for (let i = 0; i < 4; i++) expect(col[i]).to.equal(i + 0.5);
    for (let n = 8; n <= length; n *= 2) expect(col[n - 1]).to.equal(n);
    // Past a megabyte the same view grows in place.
    expect(views.size).to.equal(1);
  });

  it('a slot column reads back every field set, as it grows through its first chunk and then chunk by chunk, new slots zero', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        // Writes to slots up to 3 chunks of CHUNK_SLOTS slots, most of them low and the chunks' edges often, so
        // the first chunk is copied as it doubles with values in it and later chunks are added beside
        // it. Each write first reserves room for its slot, as the order store does.
        fc.array(
          fc.tuple(
            fc.oneof(
              { weight: 4, arbitrary: fc.integer({ min: 0, max: 3000 }) },
              { weight: 2, arbitrary: fc.constantFrom(0, 1, 1023, 1024, 2047, 2048, CHUNK_SLOTS - 1, CHUNK_SLOTS, CHUNK_SLOTS + 1, 2 * CHUNK_SLOTS - 1, 2 * CHUNK_SLOTS) },
              { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 * CHUNK_SLOTS + 5 }) },
            ),
            fc.nat(),
            fc.oneof(fc.double({ noNaN: true }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
          ),
          { maxLength: 300 },
        ),
        (stride, writes) => {
          const col = new SlotColumn(stride);
          const model = new Map<string, number>();
          let reserved = 0;
          for (const [slot, f, value] of writes) {
            const field = f % stride;
            if (slot >= reserved) {
              reserved = slot + 1;
              col.reserve(reserved);
              // Room grows by doubling up to one chunk, then by whole chunks: never more than asked for
              // past the chunk that holds the last slot asked for.
              const chunkSlots = CHUNK_SLOTS;
              const expected = reserved <= chunkSlots ? Math.max(1024, 2 ** Math.ceil(Math.log2(reserved))) : Math.ceil(reserved / chunkSlots) * chunkSlots;
              expect(col.capacity).to.equal(expected);
            }
            col.set(slot, field, value);
            model.set(`${slot}:${field}`, value);
            // Every value written so far survives the growth this write may have caused.
            for (const [key, v] of model) {
              const [s, f] = key.split(':').map(Number) as [number, number];
              expect(col.get(s, f)).to.equal(v);
            }
            // The same field read back through chunk and offset, as the store's multi-field writes do.
            expect(col.chunk(slot)[col.offset(slot) + field]).to.equal(value);
          }
          for (const [key, value] of model) {
            const [slot, field] = key.split(':').map(Number) as [number, number];
            expect(col.get(slot, field)).to.equal(value);
          }
          // Slots never written read as zero, in every chunk reserved.
          for (const slot of [0, 1023, 1024, 65_535, 65_536, 65_537, 131_071, 131_072, reserved - 1]) {
            if (slot < 0 || slot >= reserved) continue;
            for (let field = 0; field < stride; field++) if (!model.has(`${slot}:${field}`)) expect(col.get(slot, field)).to.equal(0);
          }
        },
      ),
      { numRuns: 40, seed: 23 },
    );
  });

  it('a string column reads back what was set, across chunks, and forgets it all on clear', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.string()), { maxLength: 200 }), (writes) => {
        const column = new StringColumn<string>('');
        const model = new Map<number, string>();
        for (const [i, v] of writes) {
          column.set(i, v);
          model.set(i, v);
        }
        for (const [i, v] of model) expect(column.get(i)).to.equal(v);
        column.clear();
        // Everything written before is blank again, in every chunk.
        for (const i of model.keys()) expect(column.get(i)).to.equal('');
        column.set(0, 'x');
        expect(column.get(0)).to.equal('x');
      }),
      { numRuns: 50, seed: 19 },
    );
  });
  it('an interner numbers names in first-seen order as a Map would, the empty name included', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.constantFrom('', 'a', 'b', 'BTC-USD', ' ')), { maxLength: 60 }), (ops) => {
        internAgainstMap(ops);
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it('an interner answers as a Map does through growth and through names whose hashes collide', () => {
    // UUID-shaped names that differ only in the middle share idHash (it reads the first 4 and last 12
    // characters of a long id), so they probe past each other; hundreds of names grow the table.
    const colliding = fc.integer({ min: 0, max: 40 }).map((n) => `a000-${String(n).padStart(4, '0')}-0000-4000-8000-000000000001`);
    const uuid = fc.uuid();
    const short = fc.string({ maxLength: 17 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.oneof(colliding, uuid, short)), { minLength: 80, maxLength: 400 }), (ops) => {
        const { names, model } = internAgainstMap(ops);
        for (const [name, index] of model) {
          // A copy of the text, not the object the interner holds (nor the one it last saw).
          const fresh = JSON.parse(JSON.stringify(name)) as string;
          expect(names.indexOf(fresh), `indexOf(copy of ${JSON.stringify(name)})`).to.equal(index);
          expect(names.nameOf(index)).to.equal(name);
        }
      }),
      { numRuns: 200, seed: 29 },
    );
  });

  it('folds a well-formed log whose market id is empty (the schema allows it) into a consistent state', () => {
    // Found in review: the interner's "last name" started as '', so '' was never interned and the
    // market's state went to index -1 without an error.
    const at = (n: number): string => `2026-01-01T00:00:00.${String(n).padStart(6, '0')}Z`;
    const market = { market_id: '', display_name: 'x', base_asset: '', quote_asset: '', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true };
    const log = [
      { seq: 1, time: at(1), type: 'TraderProvisioned', data: { trader_id: 't1', username: 'a', api_key_hash: 'h1' } },
      { seq: 2, time: at(2), type: 'TraderProvisioned', data: { trader_id: 't2', username: 'b', api_key_hash: 'h2' } },
      { seq: 3, time: at(3), type: 'MarketUpserted', data: { market } },
      { seq: 4, time: at(4), type: 'OrderSubmitted', data: { order: { id: 'o1', trader_id: 't1', market: '', side: 'BUY', price: 100, quantity: 5 }, fills: [], remaining: 5 } },
      {
        seq: 5,
        time: at(5),
        type: 'OrderSubmitted',
        data: { order: { id: 'o2', trader_id: 't2', market: '', side: 'SELL', price: 100, quantity: 2 }, fills: [{ fill_id: 'f1', maker_order_id: 'o1', maker_trader_id: 't1', price: 100, quantity: 2, maker_remaining: 3 }], remaining: 0 },
      },
    ];
    const exchange = new Exchange();
    for (const e of log) {
      expect(parseEvent(e).ok, `seq ${e.seq} is well formed`).to.equal(true);
      exchange.fold(e as unknown as RecordedEvent);
    }
    expect(exchange.state.books.exposure('t1', '')).to.deep.equal({ buy: 3, sell: 0 });
    expect(() => exchange.state.checkConsistency()).to.not.throw();
  });
});
