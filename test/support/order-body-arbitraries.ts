// Generators of order bodies and the agreement check shared by the specs that hold a hand-written
// check to its zod schema (test/http/fast-order-bodies.spec.ts, test/ws/fast-client-messages.spec.ts).
import { expect } from 'chai';
import fc from 'fast-check';

/** Only what JSON.parse can produce, with the overlong literals (±1e400 → ±Infinity) it turns into infinities. */
export const jsonOf = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(/"__inf__"/g, '1e400').replace(/"__-inf__"/g, '-1e400'));

export const oddNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 0.5, 1, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE, '__inf__', '__-inf__'),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
export const anyJson = fc.jsonValue({ maxDepth: 2 });
/** Each field: usually a valid value, sometimes a near miss, sometimes any JSON, sometimes absent. */
export const field = <T, U>(good: fc.Arbitrary<T>, near: fc.Arbitrary<U>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: near }, { weight: 1, arbitrary: anyJson }, { weight: 1, arbitrary: fc.constant(undefined) });

export const submitBody = fc.record(
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

export function agrees<T>(fast: (v: unknown) => T | undefined, schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }, value: unknown): void {
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
