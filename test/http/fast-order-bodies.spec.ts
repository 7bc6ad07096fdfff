// The order path's hand-written body checks against the zod schemas they stand in for: on a large
// seeded set of bodies (valid ones, ones wrong in one field, arbitrary JSON), a body is vouched for
// exactly when zod accepts it, with zod's very output (same values, same keys in the same order). What
// is not vouched for goes to zod, which names the problem; so the answers are zod's either way.
import { expect } from 'chai';
import fc from 'fast-check';
import { AmendOrderBody, SubmitOrderBody } from '../../src/commands/schemas.ts';
import { fastAmendOrderBody, fastSubmitOrderBody } from '../../src/server/http/fast-order-bodies.ts';

const SEED = 20261124;
const RUNS = 20_000;

/** Only what JSON.parse can produce, with the overlong literals (±1e400 → ±Infinity) it turns into infinities. */
const jsonOf = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(/"__inf__"/g, '1e400').replace(/"__-inf__"/g, '-1e400'));

const oddNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 0.5, 1, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE, '__inf__', '__-inf__'),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const anyJson = fc.jsonValue({ maxDepth: 2 });
/** Each field: usually a valid value, sometimes a near miss, sometimes any JSON, sometimes absent. */
const field = <T, U>(good: fc.Arbitrary<T>, near: fc.Arbitrary<U>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: near }, { weight: 1, arbitrary: anyJson }, { weight: 1, arbitrary: fc.constant(undefined) });

const submitBody = fc.record(
  {
    market: field(fc.oneof(fc.constantFrom('BTC-USD', 'X', '', 'btc-usd'), fc.string()), fc.constantFrom(null, 1, ['BTC-USD'])),
    side: field(fc.constantFrom('BUY', 'SELL'), fc.constantFrom('buy', 'Buy', '', null)),
    price: field(oddNumber, fc.constantFrom('100', null, true)),
    quantity: field(oddNumber, fc.constantFrom('1', null, false)),
    client_order_id: field(fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/), fc.constantFrom('', 'a b', 'x'.repeat(65), 'é', 5)),
    type: field(fc.constantFrom('LIMIT', 'MARKET'), fc.constantFrom('limit', 'STOP', null)),
    time_in_force: field(fc.constantFrom('GTC', 'IOC', 'FOK', 'POST_ONLY'), fc.constantFrom('gtc', 'DAY', 0)),
    self_trade_prevention: field(fc.constantFrom('NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'), fc.constantFrom('cancel_both', '', null)),
    extra: anyJson,
    __proto__: anyJson,
  },
  { requiredKeys: [] },
);

function agrees<T>(fast: (v: unknown) => T | undefined, schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }, value: unknown): void {
  const zod = schema.safeParse(value);
  const ours = fast(value);
  const shown = JSON.stringify(value);
  if (ours === undefined) {
    expect(zod.success, `zod accepts what the fast check does not vouch for: ${shown}`).to.equal(false);
    return;
  }
  expect(zod.success, `the fast check vouches for what zod refuses: ${shown}`).to.equal(true);
  expect(ours, shown).to.deep.equal(zod.data);
  expect(Object.keys(ours as object), shown).to.deep.equal(Object.keys(zod.data as object));
}

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
