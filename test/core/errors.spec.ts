import { expect } from 'chai';
import { DomainError, ERRORS, type ErrorCode, positionLimitText, rateLimitText } from '../../src/commands/errors.ts';

// The codes and statuses the specification's tables name.
const SPEC: Record<string, number> = {
  trading_disabled: 409,
  invalid_market: 400,
  market_not_configured: 404,
  market_disabled: 409,
  market_settled: 409,
  invalid_price: 400,
  tick_size_violation: 400,
  invalid_quantity: 400,
  quantity_below_minimum: 400,
  position_limit_exceeded: 409,
  invalid_remaining: 400,
  invalid_amend: 400,
  order_not_found: 404,
  order_not_owned: 403,
  overflow: 500,
  rate_limited: 429,
  username_taken: 409,
  market_has_open_orders: 409,
  user_not_found: 404,
  body_too_large: 413,
};
const WS_ONLY = ['unauthenticated', 'invalid_message', 'unsupported_channel', 'invalid_api_key', 'standings_not_public'];

describe('errors: one registry with stable codes', () => {
  it('holds every code of the specification with its status', () => {
    for (const [code, status] of Object.entries(SPEC)) {
      expect(ERRORS, code).to.have.property(code);
      expect(ERRORS[code as ErrorCode].status, code).to.equal(status);
    }
    for (const code of WS_ONLY) expect(ERRORS).to.have.property(code);
  });

  it('maps every code to an HTTP status and a non-empty text, with codes unique in snake_case', () => {
    const codes = Object.keys(ERRORS);
    expect(new Set(codes).size).to.equal(codes.length);
    for (const [code, entry] of Object.entries(ERRORS)) {
      expect(code).to.match(/^[a-z][a-z0-9_]*$/);
      expect(entry.status).to.be.within(400, 599);
      expect(entry.message.length).to.be.greaterThan(0);
    }
  });

  it('carries the code and status on every DomainError', () => {
    const e = new DomainError('order_not_owned');
    expect([e.code, e.status, e.message]).to.deep.equal(['order_not_owned', 403, 'order belongs to another trader']);
  });

  it('words the texts the specification fixes exactly', () => {
    expect(positionLimitText('BTC-USD', 1005)).to.equal('projected net position for BTC-USD would be 1005; limit is +/-1000');
    expect(rateLimitText(100)).to.equal('per-user rate limit exceeded: max 100 ops/sec');
    expect(ERRORS.market_has_open_orders.message).to.equal('cannot delete market with open orders');
    expect(ERRORS.unauthenticated.message).to.equal('authenticate before trading');
    expect(ERRORS.rate_limited.message).to.equal(rateLimitText(100));
  });
});
