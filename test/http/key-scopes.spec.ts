// The scope of every trader route, as a table (competition-rules.md, "Keys": a read key reads every
// trader GET; no order entry, amend, cancel or cancel-all: 403 `key may only read`, insufficient_scope).
// A trader route added without a decision here fails the first test; each route is then called with a
// read key and with a trade key.
import { expect } from 'chai';
import { stateHash } from '../../src/projections/state-hash.ts';
import { Client, expectError, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';
import { ROUTES } from './support/sample-paths.ts';

/** Every trader route and the scope of key it needs. */
const SCOPES: Readonly<Record<string, 'read' | 'trade'>> = {
  'GET /api/v1/user': 'read',
  'GET /api/v1/positions': 'read',
  'GET /api/v1/portfolio': 'read',
  'GET /api/v1/leaderboard': 'read',
  'GET /api/v1/open-orders': 'read',
  'GET /api/v1/fills': 'read',
  'GET /api/v1/orders/{order_id}': 'read',
  'GET /api/v1/orders/by-client-id/{client_order_id}': 'read',
  'GET /api/v1/keys': 'read',
  'POST /api/v1/orders': 'trade',
  'PATCH /api/v1/orders/{order_id}': 'trade',
  'DELETE /api/v1/orders/{order_id}': 'trade',
  'PATCH /api/v1/orders/by-client-id/{client_order_id}': 'trade',
  'DELETE /api/v1/orders/by-client-id/{client_order_id}': 'trade',
  'DELETE /api/v1/orders': 'trade',
  'POST /api/v1/keys': 'trade',
  'DELETE /api/v1/keys/{key_id}': 'trade',
};

const TRADER_ROUTES = ROUTES.filter((r) => r.access === 'trader');
const name = (r: (typeof ROUTES)[number]): string => `${r.method.toUpperCase()} ${r.path}`;

describe('HTTP key scopes: every trader route has one', function () {
  this.timeout(30_000);
  let server: HttpTestServer;
  let c: Client;
  let trader: Trader;
  let readKey: string;
  let orderId: string;
  let keyId: string;

  before(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    trader = await c.provision('scoped');
    await c.market({ market_id: 'BTC-USD' });
    const placed = await c.trader<{ order: { id: string } }>(trader.api_key, 'POST', '/api/v1/orders', { market: 'BTC-USD', side: 'BUY', price: 90, quantity: 5, client_order_id: 'resting-1' });
    orderId = placed.body.order.id;
    const issued = await c.trader<{ api_key: string; key: { key_id: string } }>(trader.api_key, 'POST', '/api/v1/keys', { label: 'reader' });
    readKey = issued.body.api_key;
    keyId = issued.body.key.key_id;
  });
  after(() => server.close());

  it('the table decides every trader route, and each route declares the scope the table gives it', () => {
    expect(TRADER_ROUTES.map(name).sort(), 'trader routes without a scope decision in this table, or decided routes that are gone').to.deep.equal(Object.keys(SCOPES).sort());
    for (const route of TRADER_ROUTES) expect(route.scope, name(route)).to.equal(SCOPES[name(route)]);
  });

  /** A request each route would accept from a trade key (the trader's own order, the reader key). */
  function request(route: (typeof ROUTES)[number]): { path: string; body?: unknown } {
    const path = route.path.replace('{order_id}', orderId).replace('{client_order_id}', 'resting-1').replace('{key_id}', keyId);
    if (route.method === 'post' && route.path === '/api/v1/orders') return { path, body: { market: 'BTC-USD', side: 'BUY', price: 80, quantity: 1 } };
    if (route.method === 'patch') return { path, body: { remaining: 4 } };
    if (route.method === 'post') return { path, body: {} };
    return { path };
  }

  for (const [route, scope] of Object.entries(SCOPES)) {
    it(`${route}: ${scope === 'trade' ? 'a read key is refused with 403 insufficient_scope, nothing changes' : 'a read key reads as a trade key does'}`, async () => {
      const found = TRADER_ROUTES.find((r) => name(r) === route);
      if (found === undefined) throw new Error(`no route ${route}`);
      const { path, body } = request(found);
      const method = found.method.toUpperCase();
      if (scope === 'trade') {
        const before = stateHash(server.context.service.state);
        expectError(await c.request(method, path, { apiKey: readKey, ...(body === undefined ? {} : { body }) }), 403, 'insufficient_scope', 'key may only read');
        expect(stateHash(server.context.service.state)).to.equal(before);
      } else {
        const asReader = await c.request(method, path, { apiKey: readKey });
        const asTrader = await c.request(method, path, { apiKey: trader.api_key });
        expect(asReader.status, JSON.stringify(asReader.body)).to.equal(200);
        // GET /api/v1/user echoes the key presented; everything else is the same answer.
        // GET /api/v1/user echoes the key presented, GET /api/v1/keys shows each key's last use (each
        // request is one); everything else is the same answer.
        if (route === 'GET /api/v1/user') expect(asReader.body).to.deep.include({ api_key: readKey, trader_id: trader.trader_id });
        else if (route === 'GET /api/v1/keys') expect((asReader.body as { key_id: string }[]).map((k) => k.key_id)).to.deep.equal((asTrader.body as { key_id: string }[]).map((k) => k.key_id));
        else expect(asReader.body).to.deep.equal(asTrader.body);
      }
    });
  }

  it('the same requests with a trade key are accepted (the refusals above are the scope\'s alone)', async () => {
    for (const route of TRADER_ROUTES.filter((r) => SCOPES[name(r)] === 'trade')) {
      // The key and the order are spent by the requests that succeed: each request names what still exists.
      const { path, body } = request(route);
      const r = await c.request(route.method.toUpperCase(), path, { apiKey: trader.api_key, ...(body === undefined ? {} : { body }) });
      expect(r.code, `${name(route)}: ${JSON.stringify(r.body)}`).to.not.equal('insufficient_scope');
      expect(r.status, `${name(route)}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 201, 404]);
    }
  });
});
