// Recovery from PostgreSQL: a restarted instance has exactly the state of the one before it, whether
// it folds the whole log or starts from a snapshot; a log that was tampered with or has a gap does
// not start; an unreachable database is a clear error within seconds.
import { expect } from 'chai';
import { gunzipSync, gzipSync } from 'node:zlib';
import net from 'node:net';
import { canonicalJson } from '../../src/events/canonical.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { checkChain, openInstance, sql, storedLog, until } from './support/harness.ts';
import { RandomSession, runConcurrently, runSession } from './support/random-session.ts';

async function collect(events: AsyncIterable<ExchangeEvent>): Promise<ExchangeEvent[]> {
  const out: ExchangeEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('PostgreSQL recovery', function () {
  this.timeout(90_000);
  const urls: string[] = [];
  const fresh = async () => {
    const url = await createDatabase('exchange_recovery');
    urls.push(url);
    return url;
  };

  before(async function () {
    await requirePostgres(this);
  });
  after(async () => {
    for (const url of urls) await dropDatabase(url);
  });

  it('a restarted instance has the same state, epoch, book sequences and head as the first run', async () => {
    const url = await fresh();
    const first = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' });
    const session = new RandomSession(first.exchange.state, 11);
    await runSession(first.service, session, 2500).finally(() => first.close());
    const hash = stateHash(first.exchange.state);
    const sequences = [...first.exchange.state.marketData.allSequences()];
    expect(sequences.length).to.be.greaterThan(0);

    const second = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' });
    try {
      expect(second.exchange.seq).to.equal(first.exchange.seq);
      expect(stateHash(second.exchange.state)).to.equal(hash);
      expect(second.persistence.epoch).to.equal(first.persistence.epoch);
      expect([...second.exchange.state.marketData.allSequences()]).to.deep.equal(sequences);
      // The window of finished orders holds what the history may not have yet: nothing recovery folded
      // (every event of the log is durable, its finished orders in the history's tables).
      expect([...first.exchange.state.books.orders.recentRefs()]).to.not.be.empty;
      expect([...second.exchange.state.books.orders.recentRefs()]).to.be.empty;
      // It continues the log: seq and chain go on where the first run stopped, and the orders it
      // finishes from now on go to the window.
      const more = await runSession(second.service, new RandomSession(second.exchange.state, 12), 300);
      expect(more.events[0]?.seq).to.be.greaterThan(first.exchange.seq);
      expect([...second.exchange.state.books.orders.recentRefs()]).to.not.be.empty;
    } finally {
      await second.close();
    }
    checkChain(await storedLog(url));
  });

  it('starting from a snapshot and folding the tail gives the same state as folding the whole log', async () => {
    const url = await fresh();
    const live = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '700' });
    await runSession(live.service, new RandomSession(live.exchange.state, 21), 3000).finally(() => live.close());
    const liveHash = stateHash(live.exchange.state);
    const snapshots = await sql<{ seq: string }>(url, 'select seq from snapshots order by seq');
    // Background snapshots were written, and old ones pruned to the newest three.
    expect(snapshots.length).to.be.within(1, 3);
    const newest = Number(snapshots[snapshots.length - 1]?.seq);
    expect(newest).to.be.greaterThan(live.exchange.seq - 1400);

    const fromSnapshot = await openInstance(url);
    const full = await openInstance(url, {}, { ignoreSnapshots: true }).catch(() => null);
    // Two instances cannot hold the log at once: the full replay runs after the first closes.
    expect(full).to.equal(null);
    try {
      expect(fromSnapshot.persistence.recovery?.snapshotSeq).to.equal(newest);
      expect(fromSnapshot.persistence.recovery?.folded).to.equal(live.exchange.seq - newest);
      expect(stateHash(fromSnapshot.exchange.state)).to.equal(liveHash);
    } finally {
      await fromSnapshot.close();
    }
    const replay = await openInstance(url, {}, { ignoreSnapshots: true });
    try {
      expect(replay.persistence.recovery?.snapshotSeq).to.equal(0);
      expect(stateHash(replay.exchange.state)).to.equal(liveHash);
    } finally {
      await replay.close();
    }
  });

  it('skips a snapshot whose content was altered and falls back to an older one or the log', async () => {
    const url = await fresh();
    const live = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' });
    await runSession(live.service, new RandomSession(live.exchange.state, 31), 1200);
    await live.persistence.snapshotter.snapshotNow();
    await runSession(live.service, new RandomSession(live.exchange.state, 32), 200).finally(() => live.close());
    // A character of its stored text changed (gzipped again, so the piece reads; its digest no longer matches).
    const [piece] = await sql<{ seq: string; body: Buffer }>(url, 'select seq, body from snapshot_pieces where piece = 0');
    const text = gunzipSync(piece?.body ?? Buffer.alloc(0)).toString('utf8');
    expect(text).to.include('"seq"');
    await sql(url, 'update snapshot_pieces set body = $1 where seq = $2 and piece = 0', [gzipSync(Buffer.from(text.replace('"seq"', '"seq" '), 'utf8')), piece?.seq]);
    const restarted = await openInstance(url);
    try {
      expect(restarted.persistence.recovery?.snapshotSeq).to.equal(0);
      expect(stateHash(restarted.exchange.state)).to.equal(stateHash(live.exchange.state));
    } finally {
      await restarted.close();
    }
  });

  it('refuses to start on a log whose chain is broken, naming the first bad seq', async () => {
    const url = await fresh();
    const live = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' });
    await runSession(live.service, new RandomSession(live.exchange.state, 41), 400).finally(() => live.close());
    // The table is append-only; a deliberate tamperer has to switch its triggers off first.
    let refused: unknown = null;
    await sql(url, "update events set time = '2000-01-01T00:00:00.000000Z' where seq = 123").catch((err: unknown) => (refused = err));
    expect(String(refused)).to.match(/append-only/);
    await sql(url, "set session_replication_role = replica; update events set canonical = regexp_replace(canonical, '\"username\":\"[^\"]*\"', '\"username\":\"mallory\"') where seq = (select min(seq) from events where type = 'TraderProvisioned' and seq > 1)");
    const tampered = Number((await sql<{ seq: string }>(url, "select min(seq) as seq from events where type = 'TraderProvisioned' and seq > 1"))[0]?.seq);
    let error: unknown = null;
    await openInstance(url).catch((err: unknown) => (error = err));
    expect(String(error)).to.contain(`hash chain is broken at seq ${tampered}`);
    // The failed start released the lock: a second try fails for the same reason, not the lock.
    let again: unknown = null;
    await openInstance(url).catch((err: unknown) => (again = err));
    expect(String(again)).to.contain(`hash chain is broken at seq ${tampered}`);
  });

  it('readEvents streams the committed log from the database and the unwritten tail from memory', async () => {
    const url = await fresh();
    const instance = await openInstance(url, { POSTGRES_WRITE_FLUSH_INTERVAL_MS: '60000', POSTGRES_WRITE_BATCH_SIZE: '500' });
    try {
      const { events } = await runSession(instance.service, new RandomSession(instance.exchange.state, 51), 1800);
      const full = Math.floor(events.length / 500) * 500;
      expect(full).to.be.at.least(1000);
      // Batches of 500 went out as they filled; the rest waits for the (long) interval.
      await until('the full batches committed', () => instance.persistence.writer.durableSeq >= full);
      expect(instance.persistence.status().queue_depth).to.be.greaterThan(0);
      const exported = await collect(instance.persistence.readEvents(0));
      expect(exported.map((e) => canonicalJson(e))).to.deep.equal(events.map((e) => canonicalJson(e)));
      const tail = await collect(instance.persistence.readEvents(full - 10));
      expect(tail.map((e) => e.seq)).to.deep.equal(events.filter((e) => e.seq > full - 10).map((e) => e.seq));
    } finally {
      await instance.close();
    }
  });

  it('an unreachable database is a clear error within a few seconds, not a hang', async () => {
    // A listener that accepts and never answers: the worst case (a refused port fails at once).
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const started = performance.now();
    let error: unknown = null;
    try {
      await openInstance(`postgres://postgres@127.0.0.1:${port}/nowhere`).catch((err: unknown) => (error = err));
    } finally {
      silent.close();
    }
    expect(String(error)).to.match(/cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/nowhere/);
    expect(performance.now() - started).to.be.lessThan(7000);
  });

  it('durable acks under concurrent load: every acknowledged command is in the database', async () => {
    const url = await fresh();
    const instance = await openInstance(url, { POSTGRES_DURABLE_ACKS: 'true', POSTGRES_WRITE_BATCH_SIZE: '32' });
    const result = await runConcurrently(instance.service, new RandomSession(instance.exchange.state, 61), 2000);
    // Read while the instance still runs: acknowledged means already committed.
    const stored = await storedLog(url);
    await instance.close();
    const storedSeqs = new Set(stored.map((r) => r.event.seq));
    for (const e of result.events) expect(storedSeqs.has(e.seq), `acknowledged seq ${e.seq} stored`).to.equal(true);
  });
});
