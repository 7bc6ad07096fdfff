// The scope of every WebSocket op, as a table (competition-rules.md, "Keys": a read key authenticates
// with private events and subscriptions; its order entry, amend, cancel and cancel-all are rejected with
// insufficient_scope). An op added without a decision here fails the first test. Runs with the fan-out
// child and inline (npm run test:ws-inline), where the op is refused in different processes.
import { expect } from 'chai';
import { CLIENT_MESSAGE_SCHEMAS, type ClientOp } from '../../src/server/ws/client-messages.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { checkedFetch } from '../support/contract.ts';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import type { WsTestClient } from './support/ws-test-client.ts';

/** Every op: `none` needs no key, `read` any key, `trade` a trade key. */
const SCOPES: Readonly<Record<ClientOp, 'none' | 'read' | 'trade'>> = {
  authenticate: 'none',
  subscribe: 'none',
  unsubscribe: 'none',
  ping: 'none',
  submit_order: 'trade',
  cancel_order: 'trade',
  amend_order: 'trade',
  cancel_all: 'trade',
};

describe('ws key scopes: every op has one', function () {
  this.timeout(30_000);
  let fx: ExchangeFixture;
  let trader: Trader;
  let readKey: string;
  let orderId: string;

  before(async () => {
    fx = await ExchangeFixture.start();
    trader = await fx.trader('scoped');
    await fx.market('BTC-USD');
    const res = await checkedFetch(`${fx.server.url}/api/v1/orders`, { method: 'POST', headers: { 'x-api-key': trader.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ market: 'BTC-USD', side: 'BUY', price: 90, quantity: 5 }) });
    orderId = ((await res.json()) as { order: { id: string } }).order.id;
    const issued = await fx.admin('POST', `/api/v1/admin/users/${trader.trader_id}/keys`, { scope: 'read', label: 'ws reader' });
    readKey = (issued as { api_key: string }).api_key;
  });
  after(() => fx.stop());

  it('the table decides every op the protocol has', () => {
    expect(Object.keys(SCOPES).sort()).to.deep.equal(Object.keys(CLIENT_MESSAGE_SCHEMAS).sort());
  });

  async function reader(): Promise<WsTestClient> {
    const c = await fx.client();
    c.send({ op: 'authenticate', api_key: readKey });
    expect(await c.nextType('authenticated')).to.deep.include({ trader_id: trader.trader_id, scope: 'read' });
    return c;
  }

  const TRADING: Record<string, Record<string, unknown>> = {
    submit_order: { market: 'BTC-USD', side: 'BUY', price: 80, quantity: 1 },
    cancel_order: {},
    amend_order: { remaining: 1 },
    cancel_all: { market: null },
  };

  for (const [op] of Object.entries(SCOPES).filter(([, s]) => s === 'trade')) {
    it(`${op} with a read key: reject insufficient_scope, nothing changes`, async () => {
      const c = await reader();
      const before = stateHash(fx.server.context.service.state);
      const frame = { op, request_id: rid(op), ...TRADING[op], ...(op === 'cancel_order' || op === 'amend_order' ? { order_id: orderId } : {}) };
      const reply = await c.request(frame);
      expect(reply).to.deep.include({ type: 'reject', op, code: 'insufficient_scope', message: 'key may only read' });
      expect(stateHash(fx.server.context.service.state)).to.equal(before);
    });
  }

  it('the ops that need no trade key work with a read key: subscribe, unsubscribe, ping; and its private events come', async () => {
    const c = await reader();
    c.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD' });
    expect(await c.nextType('snapshot')).to.deep.include({ market: 'BTC-USD' });
    c.send({ op: 'ping', request_id: 'p' });
    expect(await c.nextType('pong')).to.deep.include({ request_id: 'p' });
    // The trader trades with its trade key: the read session sees the order's private events.
    const trading = await fx.clientAs(trader);
    const ack = await trading.request({ op: 'submit_order', request_id: rid('t'), market: 'BTC-USD', side: 'SELL', price: 90, quantity: 2 });
    expect(ack.type).to.equal('ack');
    expect(await c.nextType('fill')).to.have.nested.property('fill.quantity', 2);
    c.send({ op: 'unsubscribe', channel: 'l3', market: 'BTC-USD' });
    expect(await c.nextType('unsubscribed')).to.deep.include({ market: 'BTC-USD' });
  });
});
