// The hand-written check of submit_order frames (client-messages.ts, fastSubmitOrder) against the zod
// schema it stands in for: on a large seeded set of frames, a frame is vouched for exactly when zod
// accepts it, with zod's very output (same values, same keys in the same order); and parseClientMessage
// answers every frame, vouched for or not, exactly as its own zod path (the fast check left out) does.
import { expect } from 'chai';
import fc from 'fast-check';
import { CLIENT_MESSAGE_SCHEMAS, fastSubmitOrder, parseClientMessage } from '../../src/server/ws/client-messages.ts';
import { agrees, anyJson, field, jsonOf, submitBody } from '../support/order-body-arbitraries.ts';

const SEED = 20261125;
const RUNS = 20_000;

const requestId = field(
  fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('r1', '', 'x'.repeat(256), '😀'.repeat(128), 'é'.repeat(256))),
  fc.constantFrom('x'.repeat(257), '😀'.repeat(129), null, 7, ['r1']),
);
const frames = fc
  .tuple(submitBody, field(fc.constant('submit_order'), fc.constantFrom('cancel_order', 'Submit_order', null)), requestId)
  .map(([body, op, id]) => ({ ...(body as object), ...(op === undefined ? {} : { op }), ...(id === undefined ? {} : { request_id: id }) }));

const fast = (value: unknown): unknown => (typeof value === 'object' && value !== null && !Array.isArray(value) ? fastSubmitOrder(value as Record<string, unknown>) : undefined);

describe('ws: the fast submit_order check agrees with the zod schema', () => {
  it(`${RUNS} generated frames, plus arbitrary JSON`, () => {
    const values = fc.sample(fc.oneof({ weight: 6, arbitrary: frames }, { weight: 1, arbitrary: anyJson }), { seed: SEED, numRuns: RUNS });
    let vouched = 0;
    for (const v of values) {
      const value = jsonOf(v);
      agrees(fast, CLIENT_MESSAGE_SCHEMAS.submit_order, value);
      if (fast(value) !== undefined) vouched++;
    }
    // Both sides of the boundary are well covered.
    expect(vouched).to.be.within(RUNS * 0.05, RUNS * 0.95);
  });

  it('parseClientMessage gives the zod path\'s answer for every frame, vouched for or not: the same message, or the same code, text and request id', () => {
    const values = fc.sample(fc.oneof({ weight: 6, arbitrary: frames }, { weight: 1, arbitrary: anyJson }), { seed: SEED + 1, numRuns: RUNS / 4 });
    let accepted = 0;
    for (const v of values) {
      const text = JSON.stringify(jsonOf(v));
      const answer = parseClientMessage(text);
      const general = parseClientMessage(text, false);
      expect(answer, text).to.deep.equal(general);
      if (answer.ok) {
        expect(Object.keys(answer.message), text).to.deep.equal(Object.keys(general.ok ? general.message : {}));
        accepted++;
      }
    }
    expect(accepted).to.be.greaterThan(RUNS / 100);
  });

  it('the edges of request_id by hand', () => {
    const order = { op: 'submit_order', market: 'BTC-USD', side: 'BUY', price: 1, quantity: 1 };
    const lone = String.fromCharCode(0xd83d);
    for (const id of ['x'.repeat(256), 'x'.repeat(257), '😀'.repeat(128), '😀'.repeat(129), '😀'.repeat(256), '😀'.repeat(257), lone.repeat(256), lone.repeat(257), `${'😀'.repeat(200)}${lone}${'x'.repeat(56)}`, `${'😀'.repeat(200)}${lone}${'x'.repeat(55)}`, '', null, 5]) agrees(fast, CLIENT_MESSAGE_SCHEMAS.submit_order, { ...order, request_id: id });
    agrees(fast, CLIENT_MESSAGE_SCHEMAS.submit_order, order);
  });

  it('own __proto__ members, as JSON.parse makes them, by hand', () => {
    for (const text of [
      '{"__proto__":{"market":"X","side":"BUY","price":1,"quantity":1},"op":"submit_order"}',
      '{"op":"submit_order","__proto__":{"request_id":"r"},"market":"A-B","side":"SELL","price":2,"quantity":3}',
      '{"op":"submit_order","market":"A-B","side":"SELL","price":2,"quantity":3,"__proto__":null,"request_id":"r9"}',
      '{"op":"submit_order","market":"A-B","side":"BUY","quantity":1,"type":"MARKET","__proto__":[1]}',
    ]) {
      agrees(fast, CLIENT_MESSAGE_SCHEMAS.submit_order, JSON.parse(text));
      const answer = parseClientMessage(text);
      const zod = CLIENT_MESSAGE_SCHEMAS.submit_order.safeParse(JSON.parse(text));
      expect(answer.ok, text).to.equal(zod.success);
    }
  });

  it('an unknown op is named by at most its first 64 characters of JSON, never half a surrogate pair', () => {
    const named = (op: unknown): string => {
      const r = parseClientMessage(JSON.stringify({ op }));
      if (r.ok) throw new Error('test: an unknown op parsed');
      return (/^unknown op (.*); expected one of /s.exec(r.error)?.[1] ?? '');
    };
    expect(named('dance')).to.equal('"dance"');
    expect(named('a'.repeat(63))).to.equal(`"${'a'.repeat(63)}`.slice(0, 64) + '…');
    // The 64th unit is the first half of 😀: the cut steps back before it.
    expect(named(`${'a'.repeat(62)}😀tail`)).to.equal(`"${'a'.repeat(62)}…`);
    expect(named({ deep: ['x'.repeat(100)] })).to.have.length(65);
  });
});
