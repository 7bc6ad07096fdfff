// The SDK across a server restart on PostgreSQL: subscribed to a book while the server stops and a new
// instance starts on the same database and port, it reconnects, resumes from its last sequence and
// epoch, and ends with the server's book: no delta applied twice, none skipped (a fresh snapshot
// only where the server answers the resume with one).
import { expect } from 'chai';
import { ExchangeSocket, type L3Book, type L3Delta } from '../../clients/typescript/src/index.ts';
import type { RunningServer } from '../../src/server/app.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';
import { call } from '../postgres/support/server-process.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';

const MARKET = 'PGR-USD';

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('TypeScript SDK: reconnect and resume across a PostgreSQL server restart', function () {
  this.timeout(120_000);
  let url: string;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_sdk_restart');
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
  });

  it('resumes the book with no gap and no duplicate, and equals the new server\'s book', async () => {
    const env = { STORAGE_BACKEND: 'postgres', DATABASE_URL: url, PER_USER_REQUESTS_PER_SECOND: '100000' };
    let server: RunningServer = await startTestServer(env);
    const admin = { admin: ADMIN_TOKEN };
    expect((await call(server.url, 'POST', '/api/v1/admin/markets', admin, { market_id: MARKET, base_asset: 'PGR', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: null, enabled: true })).status).to.be.oneOf([200, 201]);
    const keys: string[] = [];
    for (const name of ['pga', 'pgb']) keys.push((await call<{ profile: { api_key: string } }>(server.url, 'POST', '/api/v1/admin/users', admin, { username: name })).body.profile.api_key);
    const observer = new ExchangeSocket({ url: server.wsUrl, markets: [MARKET], initialDelayMs: 50, maxDelayMs: 300 });
    await observer.connect();
    const applied: number[] = [];
    const snapshots: number[] = [];
    observer.on('book', (_book: L3Book, delta: L3Delta | null) => {
      if (delta === null) snapshots.push(_book.sequence);
      else applied.push(delta.sequence);
    });
    const trade = async (base: string, n: number, offset: number): Promise<void> => {
      const traders = await Promise.all(keys.map((k) => new ExchangeSocket({ url: base, apiKey: k, reconnect: false }).connect()));
      for (let i = 0; i < n; i++) {
        const t = traders[i % 2] as ExchangeSocket;
        await t.submitOrder({ market: MARKET, side: i % 2 === 0 ? 'BUY' : 'SELL', price: 100 + ((i + offset) % 7) - 3, quantity: 1 + (i % 3) });
      }
      await Promise.all(traders.map((t) => t.close()));
    };
    await trade(server.wsUrl, 60, 0);
    const book = observer.book(MARKET) as L3Book;
    const seqBefore = await sequenceOf(server.wsUrl);
    await until(() => book.sequence === seqBefore, `book at ${seqBefore}`);
    const port = server.port;
    try {
    await server.close();
    await until(() => !observer.isConnected, 'the disconnect');
    server = await startTestServer({ ...env, BIND_ADDR: `127.0.0.1:${port}` });
      await until(() => observer.isConnected, 'the reconnect');
      await trade(server.wsUrl, 40, 3);
      const seqAfter = await sequenceOf(server.wsUrl);
      expect(seqAfter).to.be.greaterThan(seqBefore);
      await until(() => book.sequence === seqAfter, `book at ${seqAfter} (has ${book.sequence})`);
      const ws = await WsTestClient.open(server.wsUrl);
      ws.send({ op: 'subscribe', channel: 'l3', market: MARKET });
      const snap = await ws.nextType('snapshot');
      await ws.close();
      expect(book.bids()).to.deep.equal(snap['bids']);
      expect(book.asks()).to.deep.equal(snap['asks']);
      // No delta applied twice or skipped: every applied delta follows the one before it, or a snapshot.
      expect(new Set(applied).size, 'a delta applied twice').to.equal(applied.length);
      expect(observer.stats.gaps).to.equal(0);
      const resumedBySnapshot = snapshots.length > 1;
      if (!resumedBySnapshot) expect(applied).to.deep.equal(Array.from({ length: applied.length }, (_, i) => (applied[0] as number) + i));
      expect(observer.stats.reconnects).to.be.greaterThan(0);
    } finally {
      await observer.close();
      await server.close();
    }
  });
});

async function sequenceOf(wsUrl: string): Promise<number> {
  const ws = await WsTestClient.open(wsUrl);
  try {
    ws.send({ op: 'subscribe', channel: 'l3', market: MARKET });
    return (await ws.nextType('snapshot'))['sequence'] as number;
  } finally {
    await ws.close();
  }
}
