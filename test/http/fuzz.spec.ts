// Hundreds of malformed bodies at every route (seeded, so a failure replays), then: the state hash
// is unchanged, nothing answered 500, and the server still answers.
import { expect } from 'chai';
import fc from 'fast-check';
import { stateHash } from '../../src/projections/state-hash.ts';
import { Client, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';
import { ROUTES, samplePath } from './support/sample-paths.ts';

const SEED = 20260601;
const PER_ROUTE = 200;

/** Text that is not JSON at all, or JSON cut short. */
const brokenJson = fc.oneof(
  fc.string({ minLength: 1, maxLength: 60 }).filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return s.trim() !== '';
    }
  }),
  fc.json().filter((j) => j.length > 1).map((j) => j.slice(0, -1)).filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  }),
  fc.constantFrom('{', '{"price": NaN}', "{'a':1}", '{"a":1,}', '[1,2', 'undefined', '{"market":"BTC-USD" "side":"BUY"}'),
);

/** Numbers decide must refuse: anything but an integer in 1..2^53-1. */
const hostileNumber = fc
  .oneof(fc.constantFrom(0, -1, 0.5, 2 ** 53, -(2 ** 53), 1e308, Number.MIN_VALUE), fc.double({ noNaN: true, noDefaultInfinity: true }))
  .filter((n) => !(Number.isSafeInteger(n) && n > 0));

/** Query strings for GET routes, which take no body: garbage values for every parameter they read. */
const hostileQuery = fc
  .dictionary(fc.constantFrom('limit', 'market', 'after_seq', 'x'), fc.oneof(fc.string(), fc.constantFrom('-1', '1e3', '', '0x10', '99999999999999999999')), { minKeys: 1 })
  .map((q) => new URLSearchParams(q).toString());

describe('HTTP fuzz: malformed bodies change nothing', function () {
  this.timeout(60_000);
  let server: HttpTestServer;
  let c: Client;
  let trader: Trader;
  let orderId: string;

  before(async () => {
    server = await startHttpTestServer({ PER_USER_REQUESTS_PER_SECOND: '1000000' });
    c = new Client(server.url);
    trader = await c.provision('fuzzer');
    await c.provision('target');
    await c.market({ market_id: 'BTC-USD', tick_size: 5, min_order_quantity: 2 });
    orderId = (await c.order(trader.api_key, 'BTC-USD', 'BUY', 100, 10)).body.order.id;
  });
  after(() => server.close());

  it(`${PER_ROUTE} malformed bodies (query strings for GETs) at every route leave the state hash as it was`, async () => {
    const before = stateHash(server.context.service.state);
    const seq = server.context.service.exchange.seq;
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const [index, route] of ROUTES.entries()) {
      const method = route.method.toUpperCase();
      // PATCH reaches the fuzzer's own resting order (so values get to decide); DELETE a sample id that
      // is nobody's order, so that every request must be refused.
      const path = route.method === 'patch' ? samplePath(route).replace('3f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b', orderId) : samplePath(route);
      const auth = route.access === 'admin' ? { admin: true } : route.access === 'trader' ? { apiKey: trader.api_key } : {};
      // Routes with a body schema also get well-formed JSON that the schema refuses or that decide
      // refuses on its values; body-less routes would act on any valid JSON, so they get broken text only.
      const schema = route.body;
      const invalidJson: fc.Arbitrary<string> =
        schema === undefined
          ? brokenJson
          : fc.oneof(
              brokenJson,
              fc.jsonValue().filter((v) => !schema.safeParse(v).success).map((v) => JSON.stringify(v)),
              fc
                .record({
                  market: fc.oneof(fc.string(), fc.constant('BTC-USD')),
                  side: fc.constantFrom('BUY', 'SELL', 'buy', ''),
                  price: hostileNumber,
                  quantity: hostileNumber,
                  remaining: hostileNumber,
                  settlement_price: hostileNumber,
                  tick_size: hostileNumber,
                  username: fc.string({ maxLength: 3 }).map((s) => `\u0001${s}`),
                  // A config load would accept any object that has no markets to refuse.
                  markets: fc.constant(7),
                })
                .map((v) => JSON.stringify(v)),
            );
      const inputs = fc.sample(route.method === 'get' ? hostileQuery : invalidJson, { seed: SEED + index, numRuns: PER_ROUTE });
      for (let i = 0; i < inputs.length; i += 20) {
        const batch = inputs.slice(i, i + 20);
        const replies = await Promise.all(batch.map((input) => (route.method === 'get' ? c.request(method, `${path}?${input}`, auth) : c.request(method, path, { ...auth, raw: input }))));
        for (const r of replies) {
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (route.method !== 'get') {
            expect(r.status, `${method} ${path}`).to.be.within(400, 499);
            expect(r.code).to.be.a('string');
          }
          expect(r.status, `${method} ${path}`).to.be.below(500);
        }
        sent += batch.length;
      }
    }
    expect(sent).to.be.greaterThan(ROUTES.length * PER_ROUTE * 0.9);
    expect(server.context.service.exchange.seq).to.equal(seq);
    expect(stateHash(server.context.service.state)).to.equal(before);
    const health = await c.request<{ status: string }>('GET', '/health');
    expect(health.status).to.equal(200);
    expect((await c.trader(trader.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
    expect([...statuses.keys()].every((s) => s < 500)).to.equal(true);
  });
});
