// The contract checks (test/support/contract.ts) themselves: a root hook fails the test after which a
// REST response or a WebSocket frame broke the OpenAPI or AsyncAPI document, even when the test
// caught the error; and the checks do catch what they must.
import { expect } from 'chai';
import { checkRestResponse, checkServerFrame, drainContractViolations } from './support/contract.ts';

afterEach(function () {
  const found = drainContractViolations();
  if (found.length > 0) throw new Error(`contract violations during "${this.currentTest?.fullTitle() ?? '?'}":\n${found.slice(0, 5).join('\n')}`);
});

describe('contract checks', () => {
  afterEach(() => drainContractViolations());

  it('pass the frames the document describes', () => {
    expect(checkServerFrame(JSON.stringify({ type: 'pong', request_id: null }))).to.equal(null);
    expect(checkServerFrame(JSON.stringify({ type: 'heartbeat', time: '2026-01-01T00:00:00.000000Z', epoch: 'e', sequences: { 'BTC-USD': 3 } }))).to.equal(null);
  });

  it('catch a frame of an unknown type, a missing field, an extra field and a wrong type', () => {
    expect(checkServerFrame(JSON.stringify({ type: 'nonsense' }))).to.match(/undocumented type/);
    expect(checkServerFrame(JSON.stringify({ type: 'pong' }))).to.match(/matches no server message/);
    expect(checkServerFrame(JSON.stringify({ type: 'pong', request_id: null, extra: 1 }))).to.match(/matches no server message/);
    expect(checkServerFrame(JSON.stringify({ type: 'heartbeat', time: 'x', epoch: 'e', sequences: { a: -1 } }))).to.match(/matches no server message/);
    expect(drainContractViolations()).to.have.length(4);
  });

  it('catch a REST body, status or error code the OpenAPI document does not allow', () => {
    const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
    const url = 'http://127.0.0.1:1/api/v1/markets';
    expect(() => checkRestResponse('GET', url, 200, json, '[]')).to.not.throw();
    expect(() => checkRestResponse('GET', url, 200, json, '[{"market_id":1}]')).to.throw(/contract: GET \/api\/v1\/markets/);
    expect(() => checkRestResponse('GET', url, 418, json, '{}')).to.throw(/status not documented/);
    const error = new Headers({ 'content-type': 'application/json', 'x-error-code': 'order_not_found' });
    expect(() => checkRestResponse('POST', 'http://127.0.0.1:1/api/v1/orders', 400, error, '{"error":"x"}')).to.throw(/x-error-code order_not_found not documented/);
    expect(() => checkRestResponse('GET', 'http://127.0.0.1:1/no/such/route', 404, json, '{"error":"no such route"}')).to.not.throw();
    expect(drainContractViolations()).to.have.length(3);
  });
});
