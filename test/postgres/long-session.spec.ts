// A long session with a small live state, as a busy competition runs one: crossing orders from a few
// traders while a few thousand other orders rest. Whatever its length, the snapshots stay the size of
// the live state, the process keeps about the same heap (the history is in the database), and the books
// keep no more than their window of finished orders; at its end the fan-out child, killed, comes back
// from a fresh snapshot, and the exchange, killed with SIGKILL, restarts on its log with every default
// and serves, its state hash the log's. Before the history left the live state, every event kept about
// 330 bytes of heap, and snapshots grew by 66 MiB every 100,000 events until one could not be written.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isDomainError } from '../../src/commands/errors.ts';
import { DuplicateSubmission } from '../../src/commands/duplicate-submission.ts';
import type { Command } from '../../src/commands/types.ts';
import { RECENT_ORDERS } from '../../src/projections/orders/order-store.ts';
import type { RunningServer } from '../../src/server/app.ts';
import { hashApiKey } from '../../src/server/clock.ts';
import type { PostgresPersistence } from '../../src/server/persistence/postgres/postgres-persistence.ts';
import type { SnapshotFigures } from '../../src/server/persistence/postgres/snapshotter.ts';
import { WsTestClient, type Frame } from '../ws/support/ws-test-client.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';
import { call, PROCESS_ADMIN_TOKEN, ROOT, spawnServer } from './support/server-process.ts';
import { submitLookedUp, until } from './support/harness.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const EVENTS = 240_000;
const RESTING = 3_000;
const CROSSERS = 8;
const MARKET = 'LS-USD';

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const trader = (i: number) => `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;
const keyOf = (i: number) => `exch_${String(i).padStart(32, '0')}`;

describe('PostgreSQL: a long session with a small live state', function () {
  this.timeout(300_000);
  let url: string;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_long');
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
  });

  it(`over ${EVENTS.toLocaleString('en-US')} events keeps snapshots and retained state bounded, the fan-out child restarts at its end, and a SIGKILL of the exchange restarts serving`, async () => {
    // Every default but the fan-out (the child's restart is the point) and the rate limit.
    const server: RunningServer = await startTestServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: url, WS_FANOUT: 'process', PER_USER_REQUESTS_PER_SECOND: '1000000' });
    const samples: { seq: number; heap: number; snapshot: SnapshotFigures; orders: number; feed: number }[] = [];
    try {
      const { service } = server.context;
      const state = service.state;
      const persistence = service.persistence as PostgresPersistence;
      const run = async (build: (time: string) => Command): Promise<void> => {
        try {
          await service.execute((s) => build(s.time));
        } catch (err) {
          if (!isDomainError(err) && !(err instanceof DuplicateSubmission)) throw err;
        }
      };
      await run((time) => ({ type: 'UpsertMarket', time, market: { market_id: MARKET, base_asset: 'LS', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 1000, enabled: true } }));
      for (let i = 0; i < 30; i++) await run((time) => ({ type: 'ProvisionTrader', time, username: `long${i}`, trader_id: trader(i), api_key_hash: hashApiKey(keyOf(i)) }));
      // The live state: orders far from the crossing price, resting for good.
      let ids = 0;
      const id = () => `cccccccc-0000-4000-8000-${(++ids).toString(16).padStart(12, '0')}`;
      const submit = (t: number, side: 'BUY' | 'SELL', price: number, cid: string | null) => (time: string) =>
        ({ type: 'SubmitOrder', time, trader_id: trader(t), market: MARKET, side, price, quantity: 1, order_type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: cid, order_id: id(), fill_id_seed: id() }) as Command;
      for (let i = 0; i < RESTING; i++) await run(submit(CROSSERS + (i % 20), i % 2 === 0 ? 'BUY' : 'SELL', i % 2 === 0 ? 100 + (i % 400) : 1500 + (i % 400), null));
      // The history: every other order takes the one before it. One in ten carries a client order id,
      // looked up (the filter, then the database) as the routes look it up.
      let n = 0;
      const history = server.context.history;
      while (state.seq < EVENTS) {
        const t = n % CROSSERS;
        const side = Math.floor(n / CROSSERS) % 2 === 0 ? 'BUY' : 'SELL';
        const cid = n % 10 === 0 ? `x${n}` : null;
        const build = submit(t, side, 1000, cid);
        n++;
        if (cid === null) {
          // In this turn when there is room, as the HTTP fast path does; else waiting for the writer.
          try {
            if (service.executeNow((s) => build(s.time)) === null) await run(build);
          } catch (err) {
            if (!isDomainError(err)) throw err;
          }
        } else {
          await submitLookedUp(service, history, trader(t), cid, build);
        }
        if (n % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
        if (state.seq >= (samples.length + 1) * (EVENTS / 4) && samples.length < 4) {
          await persistence.durable(state.seq);
          const snapshot = await persistence.snapshotter.snapshotNow();
          samples.push({ seq: state.seq, heap: heapAfterGc(), snapshot, orders: state.books.orders.count, feed: persistence.feed.size });
        }
      }
      const [first, second, , last] = samples;
      if (first === undefined || second === undefined || last === undefined) throw new Error('test: no samples');
      // Snapshots: the live state's size, not the log's (the orders resting, within a few bytes each).
      for (const s of samples) expect(Math.abs(s.snapshot.bytes - first.snapshot.bytes) / first.snapshot.bytes, `snapshot at ${s.seq}: ${s.snapshot.bytes} bytes, at ${first.seq}: ${first.snapshot.bytes}`).to.be.below(0.02);
      expect(last.snapshot.bytes / RESTING, 'bytes of text per resting order').to.be.below(400);
      // Retained: what the books keep is bounded by the window; the heap barely moves (it grew 330 B an
      // event before; 30 B an event leaves room for the collector's noise).
      for (const s of samples) {
        // Resting: the live state and the crossers' own (at most one side of theirs rests at a time).
        expect(s.orders, `orders kept at ${s.seq}`).to.be.at.most(RESTING + 2 * CROSSERS + RECENT_ORDERS + 2);
        expect(s.feed, `history items waiting for the database at ${s.seq}`).to.equal(0);
      }
      const perEvent = (last.heap - second.heap) / (last.seq - second.seq);
      expect(perEvent, `heap per event from ${second.seq} to ${last.seq}: ${Math.round(second.heap / 1048576)} MiB to ${Math.round(last.heap / 1048576)} MiB`).to.be.below(30);

      // The fan-out child, killed at the end, comes back from a fresh snapshot and serves the book.
      const fanout = server.fanout;
      if (fanout === null) throw new Error('test: no fan-out child');
      const pid = fanout.pid;
      expect(pid).to.not.equal(null);
      process.kill(pid as number, 'SIGKILL');
      await until('a new fan-out child', () => fanout.pid !== null && fanout.pid !== pid, 30_000);
      const ws = await WsTestClient.open(server.wsUrl);
      try {
        ws.send({ op: 'subscribe', channel: 'l3', market: MARKET });
        const snapshot = await ws.next((f: Frame) => f.type === 'snapshot');
        const bids = snapshot['bids'] as unknown[];
        const asks = snapshot['asks'] as unknown[];
        expect(bids.length + asks.length).to.equal(state.books.marketOrderCount(MARKET));
        expect(snapshot['sequence']).to.equal(state.marketData.sequence(MARKET));
      } finally {
        ws.ws.close();
      }
    } finally {
      await server.close();
    }

    // Every default, as a process: take orders, SIGKILL it, start it again.
    const env = { STORAGE_BACKEND: 'postgres', DATABASE_URL: url };
    const first = await spawnServer(env, 60_000);
    try {
      for (let i = 0; i < 40; i++) expect((await call(first.url, 'POST', '/api/v1/orders', { apiKey: keyOf(i % CROSSERS) }, { market: MARKET, side: i % 2 === 0 ? 'BUY' : 'SELL', price: 1000, quantity: 1 })).status).to.be.oneOf([200, 201]);
    } finally {
      await first.kill('SIGKILL');
    }
    const again = await spawnServer(env, 60_000);
    try {
      await until('serving', async () => (await call(again.url, 'GET', '/health')).status === 200, 30_000);
      const order = await call<{ order: { status: string } }>(again.url, 'POST', '/api/v1/orders', { apiKey: keyOf(0) }, { market: MARKET, side: 'BUY', price: 1, quantity: 1 });
      expect(order.status).to.equal(201);
      const head = await call<{ seq: number; state_hash: string }>(again.url, 'GET', '/api/v1/admin/state-hash', { admin: PROCESS_ADMIN_TOKEN });
      const replayed = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['replay/cli.ts', 'state', '--database', url, '--state-hash', '--until-seq', String(head.body.seq), '--quiet'], { cwd: ROOT }, (err, stdout, stderr) => (err === null ? resolve(stdout.trim()) : reject(new Error(stderr)))),
      );
      expect(replayed, 'the restarted server\'s state hash is its log\'s').to.equal(head.body.state_hash);
    } finally {
      await again.kill('SIGTERM');
    }
  });
});
