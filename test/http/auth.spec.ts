// Authentication on every protected route, taken from the route table itself so no route is missed.
import { expect } from 'chai';
import { Client, expectError } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';
import { ROUTES, samplePath } from './support/sample-paths.ts';

describe('HTTP authentication', () => {
  let server: HttpTestServer;
  let c: Client;
  let key: string;

  before(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    key = (await c.provision('auth-user')).api_key;
  });
  after(() => server.close());

  const trader = ROUTES.filter((r) => r.access === 'trader');
  const admin = ROUTES.filter((r) => r.access === 'admin');

  it('the spec\'s trader and admin routes are all declared with their access', () => {
    expect(trader.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort()).to.deep.equal(
      [
        'GET /api/v1/user',
        'GET /api/v1/positions',
        'GET /api/v1/portfolio',
        'GET /api/v1/leaderboard',
        'GET /api/v1/open-orders',
        'GET /api/v1/fills',
        'POST /api/v1/orders',
        'PATCH /api/v1/orders/{order_id}',
        'DELETE /api/v1/orders/{order_id}',
        // trading-extensions.md
        'GET /api/v1/orders/{order_id}',
        'GET /api/v1/orders/by-client-id/{client_order_id}',
        'PATCH /api/v1/orders/by-client-id/{client_order_id}',
        'DELETE /api/v1/orders/by-client-id/{client_order_id}',
        'DELETE /api/v1/orders',
        // keys with scopes
        'GET /api/v1/keys',
        'POST /api/v1/keys',
        'DELETE /api/v1/keys/{key_id}',
      ].sort(),
    );
    expect(admin.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort()).to.deep.equal(
      [
        'POST /api/v1/admin/users',
        'POST /api/v1/admin/users/reset',
        'GET /api/v1/admin/state',
        'GET /api/v1/admin/state-hash',
        'POST /api/v1/admin/trading/start',
        'POST /api/v1/admin/trading/stop',
        'POST /api/v1/admin/messages',
        'GET /api/v1/admin/messages',
        'POST /api/v1/admin/config/load',
        'GET /api/v1/admin/leaderboard',
        'POST /api/v1/admin/markets',
        'PATCH /api/v1/admin/markets/{market_id}',
        'POST /api/v1/admin/markets/{market_id}/settle',
        'DELETE /api/v1/admin/markets/{market_id}',
        'GET /api/v1/admin/events',
        // running a competition
        'POST /api/v1/admin/users/bulk',
        'GET /api/v1/admin/users',
        'POST /api/v1/admin/users/{trader_id}/rotate-key',
        'POST /api/v1/admin/users/{trader_id}/disable',
        'POST /api/v1/admin/users/{trader_id}/enable',
        'PUT /api/v1/admin/schedule',
        'GET /api/v1/admin/schedule',
        'POST /api/v1/admin/leaderboard/freeze',
        // keys with scopes
        'POST /api/v1/admin/users/{trader_id}/keys',
        'GET /api/v1/admin/users/{trader_id}/keys',
        'DELETE /api/v1/admin/users/{trader_id}/keys/{key_id}',
        'GET /metrics',
        // practice rounds (practice.md): steering a practice exchange's play
        'POST /api/v1/practice/pause',
        'POST /api/v1/practice/resume',
        'POST /api/v1/practice/speed',
      ].sort(),
    );
    expect(ROUTES.filter((r) => r.path.startsWith('/api/v1/admin')).every((r) => r.access === 'admin')).to.equal(true);
  });

  for (const route of trader) {
    const method = route.method.toUpperCase();
    it(`${method} ${route.path}: 401 without x-api-key, 401 with a wrong one`, async () => {
      const body = route.body === undefined ? {} : { body: {} };
      expectError(await c.request(method, samplePath(route), body), 401, 'missing_api_key', 'missing x-api-key header');
      expectError(await c.request(method, samplePath(route), { ...body, apiKey: 'exch_00000000000000000000000000000000' }), 401, 'invalid_api_key', 'invalid API key');
      // An admin token is not a trader credential.
      expectError(await c.request(method, samplePath(route), { ...body, admin: true }), 401, 'missing_api_key');
    });
  }

  for (const route of admin) {
    const method = route.method.toUpperCase();
    it(`${method} ${route.path}: 401 without Authorization, with a wrong token, with a trader key`, async () => {
      const body = route.body === undefined ? {} : { body: {} };
      expectError(await c.request(method, samplePath(route), body), 401, 'missing_admin_token', 'missing Authorization header');
      expectError(await c.request(method, samplePath(route), { ...body, token: 'Bearer wrong' }), 401, 'invalid_admin_token', 'invalid admin token');
      expectError(await c.request(method, samplePath(route), { ...body, token: 'Bearer test-admin-token-but-longer' }), 401, 'invalid_admin_token', 'invalid admin token');
      expectError(await c.request(method, samplePath(route), { ...body, token: 'Basic dGVzdA==' }), 401, 'invalid_admin_token');
      expectError(await c.request(method, samplePath(route), { ...body, apiKey: key }), 401, 'missing_admin_token');
    });
  }

  it('the Bearer scheme is case-insensitive and the admin token works', async () => {
    expect((await c.request('GET', '/api/v1/admin/state', { token: 'bearer test-admin-token' })).status).to.equal(200);
  });

  it('a refused request changes nothing', async () => {
    const before = server.context.service.exchange.seq;
    await c.request('POST', '/api/v1/admin/users', { body: { username: 'sneaky' } });
    await c.request('POST', '/api/v1/admin/trading/stop', { token: 'Bearer nope' });
    expect(server.context.service.exchange.seq).to.equal(before);
  });
});
