// The order frames are written member by member around their views' texts (kept by identity in
// ws/view-text.ts) instead of by one JSON.stringify of the frame: they must be the very text that
// JSON.stringify of the frame object gives, whatever the views hold, and a kept text must never be
// handed out for another object.
import { expect } from 'chai';
import fc from 'fast-check';
import type { SubmitReply } from '../../src/projections/order-replies.ts';
import type { PrivateEvent } from '../../src/projections/private-feed.ts';
import type { FillView, OrderView } from '../../src/projections/views.ts';
import { orderAckFrame, privateEventFrame, submitAckFrame } from '../../src/server/ws/frames.ts';
import { viewText } from '../../src/server/ws/view-text.ts';

const text = fc.oneof(fc.string(), fc.constantFrom('"', '\\', '😀', '\u2028', 'é', '</script>'));
const num = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(0.1 + 0.2));
const orderArb: fc.Arbitrary<OrderView> = fc.record({
  id: text,
  trader_id: text,
  market: text,
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  price: fc.option(num),
  quantity: num,
  remaining: num,
  created_at: text,
  client_order_id: fc.option(text),
  type: fc.constantFrom('LIMIT' as const, 'MARKET' as const),
  time_in_force: fc.constantFrom('GTC' as const, 'IOC' as const, 'FOK' as const, 'POST_ONLY' as const),
  self_trade_prevention: fc.constantFrom('NONE' as const, 'CANCEL_TAKER' as const, 'CANCEL_MAKER' as const, 'CANCEL_BOTH' as const),
  status: fc.constantFrom('open' as const, 'filled' as const, 'canceled' as const, 'expired' as const),
  average_fill_price: fc.option(num),
});
const fillArb: fc.Arbitrary<FillView> = fc.record({ fill_id: text, market: text, maker_order_id: text, taker_order_id: text, price: num, quantity: num, occurred_at: text });

describe('ws: order frames written around their views\' texts', () => {
  it('are exactly JSON.stringify of the frame object, for any views, request ids and flags', () => {
    fc.assert(
      fc.property(orderArb, fc.array(fillArb, { maxLength: 5 }), fc.option(text), fc.boolean(), fc.boolean(), fc.nat(), (order, fills, requestId, resting, duplicate, sequence) => {
        const reply: SubmitReply = duplicate ? { order, fills, resting, duplicate: true } : { order, fills, resting };
        expect(submitAckFrame(requestId, reply)).to.equal(JSON.stringify({ type: 'ack', op: 'submit_order', request_id: requestId, order, fills, resting, ...(duplicate ? { duplicate: true } : {}) }));
        for (const op of ['cancel_order', 'amend_order'] as const) expect(orderAckFrame(op, requestId, order)).to.equal(JSON.stringify({ type: 'ack', op, request_id: requestId, order }));
        const state: PrivateEvent = { type: 'order_state', trader_id: order.trader_id, user_sequence: sequence, order, status: order.status };
        expect(privateEventFrame(state)).to.equal(JSON.stringify({ type: 'order_state', order, status: order.status, user_sequence: sequence }));
        for (const fill of fills) {
          const event: PrivateEvent = { type: 'fill', trader_id: order.trader_id, user_sequence: sequence, fill };
          expect(privateEventFrame(event)).to.equal(JSON.stringify({ type: 'fill', fill, user_sequence: sequence }));
        }
        // Every frame is one JSON object.
        expect(JSON.parse(submitAckFrame(requestId, reply))).to.deep.equal(JSON.parse(JSON.stringify({ type: 'ack', op: 'submit_order', request_id: requestId, order, fills, resting, ...(duplicate ? { duplicate: true } : {}) })));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a view\'s text by identity only: equal-looking objects, and objects asked about after many others, get their own text', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { minLength: 1, maxLength: 60 }), fc.array(fc.nat(), { maxLength: 120 }), (fills, asks) => {
        // Each asked about in a random order, many more than the cache holds, some again and again.
        for (const i of asks) {
          const fill = fills[i % fills.length] as FillView;
          expect(viewText(fill)).to.equal(JSON.stringify(fill));
          const copy = { ...fill, quantity: fill.quantity + 1 };
          expect(viewText(copy)).to.equal(JSON.stringify(copy));
        }
      }),
      { numRuns: 200 },
    );
  });
});
