// The per-trader rate limit: at most N requests in any one second, GETs included, per trader; a
// refused request does nothing and does not count.
import { expect } from 'chai';
import { TraderBudgets } from '../../src/server/admission/token-bucket.ts';
import { Client, expectError, type Reply, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

const LIMIT = 5;

describe('HTTP rate limit', () => {
  let server: HttpTestServer;
  let c: Client;
  let a: Trader;
  let b: Trader;

  before(async () => {
    server = await startHttpTestServer({ PER_USER_REQUESTS_PER_SECOND: String(LIMIT) });
    c = new Client(server.url);
    a = await c.provision('a');
    b = await c.provision('b');
    await c.market({ market_id: 'BTC-USD' });
  });
  after(() => server.close());

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('limit + 1 requests in a second: exactly one 429 with the spec\'s text; another trader is unaffected', async () => {
    await sleep(1100);
    const replies: Reply[] = await Promise.all(Array.from({ length: LIMIT + 1 }, () => c.trader(a.api_key, 'GET', '/api/v1/positions')));
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).to.have.length(1);
    expect(replies.filter((r) => r.status === 200)).to.have.length(LIMIT);
    const r429 = refused[0] as Reply;
    expectError(r429, 429, 'rate_limited', `per-user rate limit exceeded: max ${LIMIT} ops/sec`);
    expect(r429.headers.get('x-ratelimit-limit')).to.equal(String(LIMIT));
    expect(r429.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(Number(r429.headers.get('retry-after'))).to.be.within(1, 1);
    const remaining = replies.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort();
    expect(remaining).to.deep.equal([0, 1, 2, 3, 4]);
    expect((await c.trader(b.api_key, 'GET', '/api/v1/positions')).status).to.equal(200);
  });

  it('a refused order does nothing, is not counted, and every trader route counts', async () => {
    await sleep(1100);
    const paths = ['/api/v1/user', '/api/v1/portfolio', '/api/v1/leaderboard', '/api/v1/open-orders', '/api/v1/fills'];
    for (const p of paths) expect((await c.trader(a.api_key, 'GET', p)).status).to.equal(200);
    const seq = server.context.service.exchange.seq;
    expectError(await c.order(a.api_key, 'BTC-USD', 'BUY', 10, 1), 429, 'rate_limited');
    expectError(await c.trader(a.api_key, 'DELETE', '/api/v1/orders/3f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b'), 429, 'rate_limited');
    expect(server.context.service.exchange.seq).to.equal(seq);
    // Public and admin routes are never limited.
    expect((await c.request('GET', '/api/v1/markets')).status).to.equal(200);
    expect((await c.admin('GET', '/api/v1/admin/state')).status).to.equal(200);
    await sleep(1050);
    // The refused requests left no trace: a full window is available again.
    const again = await Promise.all(Array.from({ length: LIMIT }, () => c.order(a.api_key, 'BTC-USD', 'BUY', 10, 1)));
    expect(again.map((r) => r.status)).to.deep.equal(Array(LIMIT).fill(201));
  });

  describe('TraderBudgets (token bucket within the one-second rule)', () => {
    it('allows at most N in any window, not 2N across a boundary, and grows its ring as needed', () => {
      let now = 0;
      const limiter = new TraderBudgets(3, 3, () => now);
      const take = () => limiter.take('t').allowed;
      now = 900;
      expect([take(), take(), take(), take()]).to.deep.equal([true, true, true, false]);
      now = 1100; // a fixed window would reset here, and a plain bucket would have refilled 0.6 tokens
      expect(take()).to.equal(false);
      expect(limiter.take('t').retryAfterMs).to.equal(800);
      now = 1900;
      expect([take(), take(), take(), take()]).to.deep.equal([true, true, true, false]);
      const big = new TraderBudgets(100, 100, () => now);
      for (let i = 0; i < 100; i++) expect(big.take('x').allowed).to.equal(true);
      expect(big.take('x')).to.deep.equal({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    });

    it('a smaller burst: that many at once, then one per 1/rate; never more than the rate in any second', () => {
      let now = 10_000;
      const b = new TraderBudgets(10, 2, () => now);
      expect([b.take('t').allowed, b.take('t').allowed, b.take('t').allowed]).to.deep.equal([true, true, false]);
      expect(b.take('t').retryAfterMs).to.equal(100);
      now += 100;
      expect(b.take('t')).to.deep.include({ allowed: true, remaining: 0 });
      // Over a long random run, every one-second window holds at most `rate` accepted requests.
      const rate = 7;
      const bb = new TraderBudgets(rate, 5, () => now);
      const accepted: number[] = [];
      let seed = 42;
      for (let i = 0; i < 5000; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        now += seed % 97;
        if (bb.take('t').allowed) accepted.push(now);
      }
      for (let i = rate; i < accepted.length; i++) expect((accepted[i] as number) - (accepted[i - rate] as number)).to.be.greaterThan(1000 - 1e-9);
      expect(accepted.length).to.be.greaterThan(1000);
    });

    it('a refusal never says to retry at once, whatever the rounding of its times', () => {
      // Times where h + 1000 rounds so that the accepted time h has not left the window at t = h + 1000,
      // yet the wait computed from them came out 0 ms.
      let found = 0;
      for (let k = 0; k < 200_000 && found < 20; k++) {
        const h = 3100 + k * 0.00491;
        const t = h + 1000;
        if (!(t - 1000 < h)) continue;
        let now = h;
        const b = new TraderBudgets(2, 2, () => now);
        b.take('t');
        b.take('t');
        now = t;
        const d = b.take('t');
        if (d.allowed) continue;
        found++;
        expect(d.retryAfterMs, `h ${h}`).to.be.greaterThan(0);
      }
      expect(found).to.be.greaterThan(0);
    });

    it('traders are independent', () => {
      const b = new TraderBudgets(1, 1, () => 0);
      expect(b.take('a').allowed).to.equal(true);
      expect(b.take('a').allowed).to.equal(false);
      expect(b.take('b').allowed).to.equal(true);
    });
  });
});
