// The order path's hand-written body checks against the zod schemas they stand in for: on a large
// seeded set of bodies (valid ones, ones wrong in one field, arbitrary JSON), a body is vouched for
// exactly when zod accepts it, with zod's very output (same values, same keys in the same order). What
// is not vouched for goes to zod, which names the problem; so the answers are zod's either way.
import { expect } from 'chai';
import fc from 'fast-check';
import { agrees, anyJson, field, jsonOf, oddNumber, submitBody } from '../support/order-body-arbitraries.ts';
import { AmendOrderBody, SubmitOrderBody } from '../../src/commands/schemas.ts';
import { fastAmendOrderBody, fastSubmitOrderBody } from '../../src/commands/fast-order-bodies.ts';

const SEED = 20261124;
const RUNS = 20_000;

describe('fast order bodies agree with the zod schemas', () => {
  it(`SubmitOrderBody: ${RUNS} generated bodies, plus arbitrary JSON`, () => {
    const bodies = fc.sample(fc.oneof({ weight: 4, arbitrary: submitBody }, { weight: 1, arbitrary: anyJson }), { seed: SEED, numRuns: RUNS });
    let accepted = 0;
    for (const b of bodies) {
      const value = jsonOf(b);
      agrees(fastSubmitOrderBody, SubmitOrderBody, value);
      if (SubmitOrderBody.safeParse(value).success) accepted++;
    }
    // Both sides of the boundary are well covered.
    expect(accepted).to.be.within(RUNS * 0.05, RUNS * 0.95);
  });

  it('SubmitOrderBody: the edges by hand', () => {
    const cases: unknown[] = [
      { market: 'BTC-USD', side: 'BUY', price: 100, quantity: 1 },
      { market: 'BTC-USD', side: 'BUY', quantity: 1 },
      { market: 'BTC-USD', side: 'BUY', quantity: 1, type: 'MARKET' },
      { market: 'BTC-USD', side: 'BUY', quantity: 1, type: 'LIMIT' },
      { market: 'BTC-USD', side: 'SELL', price: null, quantity: 1 },
      { market: 'BTC-USD', side: 'SELL', price: '100', quantity: 1 },
      { market: 1, side: 'SELL', price: 1, quantity: 1 },
      { side: 'SELL', price: 1, quantity: 1 },
      { market: 'BTC-USD', side: 'SELL', price: 1, quantity: 1, client_order_id: null },
      { market: 'BTC-USD', side: 'SELL', price: 1, quantity: 1, time_in_force: null },
      { quantity: 2, price: 3, side: 'SELL', market: 'M', zzz: 1, type: 'LIMIT', self_trade_prevention: 'NONE', time_in_force: 'IOC', client_order_id: 'c-1' },
      [],
      null,
      'x',
      7,
      {},
    ];
    for (const c of cases) agrees(fastSubmitOrderBody, SubmitOrderBody, c);
    for (const text of ['{"market":"A-B","side":"BUY","price":1e400,"quantity":-1e400}', '{"__proto__":{"market":"A-B"},"market":"A-B","side":"BUY","price":1,"quantity":1}', '{"market":"A-B","side":"BUY","price":-0,"quantity":1}']) {
      agrees(fastSubmitOrderBody, SubmitOrderBody, JSON.parse(text));
    }
  });

  it(`AmendOrderBody: ${RUNS / 4} generated bodies`, () => {
    const bodies = fc.sample(fc.oneof(fc.record({ remaining: field(oddNumber, fc.constantFrom('1', null)), other: anyJson }, { requiredKeys: [] }), anyJson), { seed: SEED + 1, numRuns: RUNS / 4 });
    for (const b of bodies) agrees(fastAmendOrderBody, AmendOrderBody, jsonOf(b));
  });
});
