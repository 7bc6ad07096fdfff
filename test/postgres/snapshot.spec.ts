// Snapshots built off the trading thread (snapshot-worker.ts): a snapshot asked for while commands
// keep arriving holds exactly the state at its seq, and snapshot + tail is the full fold.
import { expect } from 'chai';
import pg from 'pg';
import { Exchange } from '../../src/commands/exchange.ts';
import { restoreSnapshot } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { createLogger } from '../../src/server/logger.ts';
import { LogIntegrityError } from '../../src/server/persistence/postgres/recovery.ts';
import { loadNewestSnapshot } from '../../src/server/persistence/postgres/snapshot-store.ts';
import { canonicalJson } from '../../src/events/canonical.ts';
import { chainHash } from '../../src/events/hash.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import type { StateSnapshot } from '../../src/projections/snapshot.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { openInstance, sql, type Instance } from './support/harness.ts';
import { RandomSession, runConcurrently, runSession } from './support/random-session.ts';

/** Runs `count` random commands (seeded), waits until they are stored, and snapshots: the snapshot's seq. */
async function sessionThenSnapshot(instance: Instance, seed: number, count: number): Promise<number> {
  await runSession(instance.service, new RandomSession(instance.exchange.state, seed), count);
  await instance.persistence.durable(instance.exchange.seq);
  return (await instance.persistence.snapshotter.snapshotNow()).seq;
}

describe('PostgreSQL snapshots off the trading thread', function () {
  this.timeout(60_000);
  let url: string;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_snapshot');
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
  });

  it('a snapshot taken while orders keep arriving restores to exactly the state at its seq', async () => {
    const live = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' });
    let liveHash: string;
    let seq: number;
    try {
      await runSession(live.service, new RandomSession(live.exchange.state, 51), 1500);
      // The state at the moment of asking; commands go on while the worker builds and writes it.
      const expected = stateHash(live.exchange.state);
      seq = live.exchange.seq;
      const [figures] = await Promise.all([live.persistence.snapshotter.snapshotNow(), runConcurrently(live.service, new RandomSession(live.exchange.state, 52), 800)]);
      expect(figures.seq).to.equal(seq);
      expect(live.exchange.seq).to.be.greaterThan(seq);

      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        const loaded = await loadNewestSnapshot(pool, createLogger('silent'));
        expect(loaded?.snapshot.seq).to.equal(seq);
        const restored = new Exchange();
        restoreSnapshot(restored.state, (loaded as NonNullable<typeof loaded>).snapshot);
        expect(stateHash(restored.state)).to.equal(expected);
      } finally {
        await pool.end();
      }

      // A second one folds only the events since the first into the worker's shadow state.
      await runSession(live.service, new RandomSession(live.exchange.state, 53), 300);
      await live.persistence.durable(live.exchange.seq);
      const second = await live.persistence.snapshotter.snapshotNow();
      expect(second.seq).to.equal(live.exchange.seq);
      expect(second.folded).to.equal(second.seq - seq);
      liveHash = stateHash(live.exchange.state);
    } finally {
      await live.close();
    }
    // Snapshot + tail (here none) is the live state; so is the full fold.
    const restarted = await openInstance(url);
    try {
      expect(restarted.persistence.recovery?.snapshotSeq).to.equal(restarted.exchange.seq);
      expect(stateHash(restarted.exchange.state)).to.equal(liveHash);
      await runSession(restarted.service, new RandomSession(restarted.exchange.state, 54), 200);
      const third = await restarted.persistence.snapshotter.snapshotNow();
      // A fresh worker starts from the newest snapshot, not from the start of the log.
      expect(third.folded).to.equal(third.seq - (restarted.persistence.recovery?.snapshotSeq ?? 0));
      liveHash = stateHash(restarted.exchange.state);
    } finally {
      await restarted.close();
    }
    const full = await openInstance(url, {}, { ignoreSnapshots: true });
    try {
      expect(stateHash(full.exchange.state)).to.equal(liveHash);
    } finally {
      await full.close();
    }
  });
  it('refuses to start on a log that ends before its newest snapshot (committed events gone)', async () => {
    const own = await createDatabase('exchange_snapshot_tail');
    try {
      const live = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      let seq: number;
      try {
        seq = await sessionThenSnapshot(live, 61, 300);
      } finally {
        await live.close();
      }
      const admin = new pg.Client({ connectionString: own });
      await admin.connect();
      try {
        await admin.query(`set session_replication_role = replica; delete from events where seq > ${seq - 5}`);
      } finally {
        await admin.end();
      }
      let error: unknown = null;
      await openInstance(own).then(
        (instance) => instance.close(),
        (err: unknown) => (error = err),
      );
      expect(error).to.be.instanceOf(LogIntegrityError);
      expect((error as Error).message).to.match(new RegExp(`ends at seq ${seq - 5}, but a snapshot was taken at seq ${seq}`));
      // Told to ignore snapshots, an operator can still start on what is left.
      const truncated = await openInstance(own, {}, { ignoreSnapshots: true });
      try {
        expect(truncated.exchange.seq).to.equal(seq - 5);
      } finally {
        await truncated.close();
      }
    } finally {
      await dropDatabase(own);
    }
  });

  // A snapshot is a shortcut, never the truth: one written wrong (by a bug, say; its SHA-256 is over what
  // was written, so it passes) must not keep the exchange from starting, nor make the log look broken.
  it('passes over a snapshot it cannot use (restore throws, or an event after it cannot be applied) for an older one, then the whole log', async () => {
    const own = await createDatabase('exchange_snapshot_unusable');
    try {
      const live = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      let older: number;
      let newer: number;
      let liveHash: string;
      let canceled: string;
      try {
        older = await sessionThenSnapshot(live, 71, 300);
        newer = await sessionThenSnapshot(live, 72, 300);
        // An order resting at the newer snapshot, canceled after it.
        const [row] = await sql<{ state: string }>(own, 'select state from snapshots where seq = $1', [newer]);
        const resting = (JSON.parse(row?.state ?? '{}') as StateSnapshot).orders.resting[0];
        if (resting === undefined) throw new Error('test: no order rests at the snapshot');
        canceled = resting.id;
        await live.service.execute((stamp) => ({ type: 'CancelOrder', time: stamp.time, trader_id: resting.trader_id, order_id: resting.id }));
        await runSession(live.service, new RandomSession(live.exchange.state, 73), 100);
        await live.persistence.durable(live.exchange.seq);
        liveHash = stateHash(live.exchange.state);
      } finally {
        await live.close();
      }
      // Rewrites a snapshot's state with its digest to match, as a faulty writer would have.
      const rewrite = async (seq: number, change: (snapshot: StateSnapshot) => unknown): Promise<void> => {
        const [row] = await sql<{ state: string }>(own, 'select state from snapshots where seq = $1', [seq]);
        const text = JSON.stringify(change(JSON.parse(row?.state ?? '{}') as StateSnapshot));
        await sql(own, `update snapshots set state = $1, state_sha256 = encode(sha256(convert_to($1, 'UTF8')), 'hex') where seq = $2`, [text, seq]);
      };
      const recovered = async (): Promise<{ snapshotSeq: number; hash: string }> => {
        const instance = await openInstance(own);
        try {
          return { snapshotSeq: instance.persistence.recovery?.snapshotSeq ?? -1, hash: stateHash(instance.exchange.state) };
        } finally {
          await instance.close();
        }
      };

      // The newer one restores, but without the order the log cancels after it.
      await rewrite(newer, (snapshot) => ({ ...snapshot, orders: { ...snapshot.orders, resting: snapshot.orders.resting.filter((o) => o.id !== canceled) } }));
      expect(await recovered()).to.deep.equal({ snapshotSeq: older, hash: liveHash });
      // The snapshot worker passes over it too: the next snapshot is written (and used), where a worker
      // that started every shadow from the newest snapshot failed every one, for good.
      const resumed = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      let fresh: number;
      try {
        fresh = await sessionThenSnapshot(resumed, 74, 50);
        expect(fresh).to.equal(resumed.exchange.seq);
        liveHash = stateHash(resumed.exchange.state);
      } finally {
        await resumed.close();
      }
      expect(await recovered()).to.deep.equal({ snapshotSeq: fresh, hash: liveHash });
      // None restores: the whole log.
      await rewrite(older, (snapshot) => ({ ...snapshot, orders: 'not orders' }));
      await rewrite(newer, (snapshot) => ({ ...snapshot, positions: 42 }));
      await rewrite(fresh, (snapshot) => ({ ...snapshot, fills: 7 }));
      expect(await recovered()).to.deep.equal({ snapshotSeq: 0, hash: liveHash });

      // An event no state can apply (appended with a valid link) is still the log's fault, named by seq,
      // once no snapshot is left to blame.
      const [last] = await sql<{ seq: string; hash: string; canonical: string }>(own, 'select seq, hash, canonical from events order by seq desc limit 1');
      const previous = JSON.parse(last?.canonical ?? '{}') as ExchangeEvent;
      const bad = { seq: previous.seq + 1, time: previous.time, type: 'OrderCanceled', v: 2, data: { order_id: '00000000-0000-4000-8000-00000000dead', trader_id: '00000000-0000-4000-8000-0000000000aa', market: 'X-USD', side: 'BUY', price: 1, remaining: 1 } } as unknown as ExchangeEvent;
      await sql(own, 'insert into events (seq, type, time, hash, canonical) values ($1, $2, $3, $4, $5)', [bad.seq, bad.type, bad.time, chainHash(last?.hash ?? '', bad), canonicalJson(bad)]);
      let error: unknown = null;
      await openInstance(own).then(
        (instance) => instance.close(),
        (err: unknown) => (error = err),
      );
      expect(error).to.be.instanceOf(LogIntegrityError);
      expect((error as Error).message).to.match(new RegExp(`event seq ${bad.seq} \\(OrderCanceled\\) cannot be applied: `));
    } finally {
      await dropDatabase(own);
    }
  });
});
