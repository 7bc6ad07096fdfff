// Snapshots built off the trading thread (snapshot-worker.ts): a snapshot asked for while commands
// keep arriving holds exactly the state at its seq, and snapshot + tail is the full fold.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { pino } from 'pino';
import { Exchange } from '../../src/commands/exchange.ts';
import { orderOfTuple, restoreSnapshot, type OrderTuple, type SnapshotHead, type SnapshotPart, type SnapshotSections } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { createLogger } from '../../src/server/logger.ts';
import { LogIntegrityError, recoverExchange } from '../../src/server/persistence/postgres/recovery.ts';
import { newestSnapshot, readSnapshotLines, SNAPSHOTS_KEPT, writeSnapshot } from '../../src/server/persistence/postgres/snapshot-store.ts';
import { canonicalJson } from '../../src/events/canonical.ts';
import { chainHash } from '../../src/events/hash.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import type { StateSnapshot } from '../../src/projections/snapshot.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { openInstance, sql, type Instance } from './support/harness.ts';
import { RandomSession, runConcurrently, runSession } from './support/random-session.ts';

/** Runs body against a database of its own, dropped after it. */
async function inOwnDatabase(name: string, body: (url: string) => Promise<void>): Promise<void> {
  const own = await createDatabase(name);
  try {
    await body(own);
  } finally {
    await dropDatabase(own);
  }
}

/** A stored snapshot as values: its lines read back (their digest checked) and parsed. */
async function readSnapshot(url: string, seq: number): Promise<StateSnapshot> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const lines: string[] = [];
    for await (const line of readSnapshotLines(pool, seq)) lines.push(line);
    return { head: JSON.parse(lines[0] ?? '{}') as SnapshotHead, parts: lines.slice(1).map((l) => JSON.parse(l) as SnapshotPart) };
  } finally {
    await pool.end();
  }
}

/** Writes a snapshot's content anew (one piece) with its digest to match, as a faulty writer would have. */
async function storeSnapshot(url: string, seq: number, snapshot: unknown): Promise<void> {
  const s = snapshot as StateSnapshot;
  const text = [JSON.stringify(s.head), ...s.parts.map((p) => JSON.stringify(p))].join('\n');
  await sql(url, 'delete from snapshot_pieces where seq = $1', [seq]);
  await sql(url, 'insert into snapshot_pieces (seq, piece, body) values ($1, 0, $2)', [seq, gzipSync(Buffer.from(text, 'utf8'))]);
  await sql(url, `update snapshots set state_sha256 = encode(sha256(convert_to($1, 'UTF8')), 'hex') where seq = $2`, [text, seq]);
}

/** Rewrites a snapshot's state with its digest to match, as a faulty writer would have. */
async function rewriteSnapshot(url: string, seq: number, change: (snapshot: StateSnapshot) => unknown): Promise<void> {
  await storeSnapshot(url, seq, change(await readSnapshot(url, seq)));
}

/** The snapshot with one section's items changed (every part of it). */
function withSection(snapshot: StateSnapshot, section: SnapshotPart['section'], change: (items: readonly unknown[]) => unknown): StateSnapshot {
  return { ...snapshot, parts: snapshot.parts.map((p) => (p.section === section ? ({ section, items: change(p.items) } as unknown as SnapshotPart) : p)) };
}

function itemsOf<S extends SnapshotPart['section']>(snapshot: StateSnapshot, section: S): SnapshotSections[S][] {
  const out: SnapshotSections[S][] = [];
  for (const p of snapshot.parts) if (p.section === section) for (const item of p.items as readonly SnapshotSections[S][]) out.push(item);
  return out;
}

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
        const found = await newestSnapshot(pool, createLogger('silent'));
        expect(found?.seq).to.equal(seq);
      } finally {
        await pool.end();
      }
      const restored = new Exchange();
      restoreSnapshot(restored.state, await readSnapshot(url, seq));
      expect(stateHash(restored.state)).to.equal(expected);

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
    await inOwnDatabase('exchange_snapshot_tail', async (own) => {
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
      // Whatever build wrote the snapshot: one of another format (which recovery does not restore)
      // still says the log once reached its seq. It was skipped for its format first, and the cut log
      // started with its lost events unnoticed.
      await sql(own, 'update snapshots set format_version = format_version - 1 where seq = $1', [seq]);
      error = null;
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
    });
  });

  // A snapshot is a shortcut, never the truth: one written wrong (by a bug, say; its SHA-256 is over what
  // was written, so it passes) must not keep the exchange from starting, nor make the log look broken.
  it('passes over snapshots it cannot use (restore throws, or an event after them cannot be applied) for an older one, then the whole log; so does the snapshot worker', async () => {
    await inOwnDatabase('exchange_snapshot_unusable', async (own) => {
      const live = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      let older: number;
      let newer: number;
      let newest: number;
      let liveHash: string;
      let canceled: string;
      try {
        older = await sessionThenSnapshot(live, 71, 300);
        newer = await sessionThenSnapshot(live, 72, 300);
        newest = await sessionThenSnapshot(live, 75, 30);
        // An order resting at both newer snapshots, canceled after them.
        const restingAt = async (seq: number) => itemsOf(await readSnapshot(own, seq), 'orders').map(orderOfTuple);
        const atNewer = new Set((await restingAt(newer)).map((o) => o.id));
        const resting = (await restingAt(newest)).find((o) => atNewer.has(o.id));
        if (resting === undefined) throw new Error('test: no order rests at both snapshots');
        canceled = resting.id;
        await live.service.execute((stamp) => ({ type: 'CancelOrder', time: stamp.time, trader_id: resting.trader_id, order_id: resting.id }));
        await runSession(live.service, new RandomSession(live.exchange.state, 73), 100);
        await live.persistence.durable(live.exchange.seq);
        liveHash = stateHash(live.exchange.state);
      } finally {
        await live.close();
      }
      const rewrite = (seq: number, change: (snapshot: StateSnapshot) => unknown): Promise<void> => rewriteSnapshot(own, seq, change);
      const recovered = async (): Promise<{ snapshotSeq: number; hash: string }> => {
        const instance = await openInstance(own);
        try {
          return { snapshotSeq: instance.persistence.recovery?.snapshotSeq ?? -1, hash: stateHash(instance.exchange.state) };
        } finally {
          await instance.close();
        }
      };
      // A new instance's worker writes a snapshot after a few commands: the state then, and its seq.
      const snapshotAfterRestart = async (seed: number): Promise<{ seq: number; hash: string }> => {
        const resumed = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
        try {
          const seq = await sessionThenSnapshot(resumed, seed, 50);
          expect(seq).to.equal(resumed.exchange.seq);
          return { seq, hash: stateHash(resumed.exchange.state) };
        } finally {
          await resumed.close();
        }
      };

      // The two newer ones restore, but without the order the log cancels after them (a wrong value the
      // worker carried from one snapshot to the next): both are passed over.
      const withoutIt = (snapshot: StateSnapshot) => withSection(snapshot, 'orders', (items) => (items as OrderTuple[]).filter((o) => o[0] !== canceled));
      await rewrite(newer, withoutIt);
      await rewrite(newest, withoutIt);
      expect(await recovered()).to.deep.equal({ snapshotSeq: older, hash: liveHash });
      // The snapshot worker passes over them too: the next snapshot is written (and used), where a worker
      // that started every shadow from the newest snapshot failed every one, for good. (Three are kept:
      // the oldest goes.)
      const fresh = await snapshotAfterRestart(74);
      expect(await recovered()).to.deep.equal({ snapshotSeq: fresh.seq, hash: fresh.hash });
      // None restores: the whole log; and the worker, passing over all three, writes one that is used.
      await rewrite(newer, (snapshot) => withSection(snapshot, 'orders', () => 'not orders'));
      await rewrite(newest, (snapshot) => withSection(snapshot, 'positions', () => 42));
      await rewrite(fresh.seq, (snapshot) => ({ ...snapshot, parts: [...snapshot.parts, { section: 'fills', items: [7] }] }));
      expect(await recovered()).to.deep.equal({ snapshotSeq: 0, hash: fresh.hash });
      const again = await snapshotAfterRestart(76);
      expect(await recovered()).to.deep.equal({ snapshotSeq: again.seq, hash: again.hash });

      // An event no state can apply (appended with a valid link) after a good snapshot: the snapshots
      // are passed over one by one, and from the start of the log it is the log's fault, named by seq.
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
      expect((error as Error).message).to.match(new RegExp(`^event seq ${bad.seq} \\(OrderCanceled\\) cannot be applied: `));
    });
  });

  it('a gap or a broken link after a snapshot stops the start at once, without passing over the snapshot', async () => {
    await inOwnDatabase('exchange_snapshot_gap', async (own) => {
      const live = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      let seq: number;
      try {
        seq = await sessionThenSnapshot(live, 81, 200);
        await runSession(live.service, new RandomSession(live.exchange.state, 82), 50);
        await live.persistence.durable(live.exchange.seq);
      } finally {
        await live.close();
      }
      const start = async (): Promise<{ error: unknown; lines: string[] }> => {
        const lines: string[] = [];
        const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
        const pool = new pg.Pool({ connectionString: own, max: 1 });
        try {
          const error = await recoverExchange(pool, new Exchange(), logger, { workers: 1 }).then(
            () => null,
            (err: unknown) => err,
          );
          return { error, lines };
        } finally {
          await pool.end();
        }
      };
      await sql(own, `set session_replication_role = replica; update events set hash = repeat('c', 64) where seq = ${seq + 3}`);
      const broken = await start();
      expect(broken.error).to.be.instanceOf(LogIntegrityError);
      expect((broken.error as Error).message).to.match(new RegExp(`hash chain is broken at seq ${seq + 3}`));
      expect(broken.lines.join('')).to.not.include('snapshot passed over');
      await sql(own, `set session_replication_role = replica; delete from events where seq = ${seq + 2}`);
      const gapped = await start();
      expect(gapped.error).to.be.instanceOf(LogIntegrityError);
      expect((gapped.error as Error).message).to.match(new RegExp(`seq ${seq + 2} is missing`));
      expect(gapped.lines.join('')).to.not.include('snapshot passed over');
    });
  });

  it('the snapshot tables stay at a few snapshots however many are written, with autovacuum off', async () => {
    await inOwnDatabase('exchange_snapshot_space', async (own) => {
      const live = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      try {
        await runSession(live.service, new RandomSession(live.exchange.state, 61), 80);
        await live.persistence.durable(live.exchange.seq);
      } finally {
        await live.close();
      }
      // Whatever the cluster's setting: the pruned snapshots' space must come back without autovacuum.
      await sql(own, 'alter table snapshots set (autovacuum_enabled = false)');
      await sql(own, 'alter table snapshot_pieces set (autovacuum_enabled = false, toast.autovacuum_enabled = false)');
      const space = async (): Promise<number> => Number((await sql<{ bytes: string }>(own, "select pg_total_relation_size('snapshots') + pg_total_relation_size('snapshot_pieces') as bytes"))[0]?.bytes);
      const pool = new pg.Pool({ connectionString: own, max: 1 });
      try {
        // Lines that gzip does not shrink much: ~1 MiB of text a snapshot, some 0.7 MiB stored, toasted.
        const lines = (): string[] => Array.from({ length: 16 }, () => randomBytes(48 * 1024).toString('base64'));
        const written: number[] = [];
        for (let seq = 1; seq <= 30; seq++) written.push((await writeSnapshot(pool, { seq, time: '2026-01-01T00:00:00.000000Z', blockedMs: 0 }, lines())).storedBytes);
        const each = Math.max(...written);
        const kept = await sql<{ seq: number }>(own, 'select seq from snapshots order by seq');
        expect(kept.map((r) => Number(r.seq))).to.deep.equal([28, 29, 30]);
        // Thirty written, three kept: a vacuum after each write lets the next reuse the pruned ones'
        // space (a few snapshots' worth, not thirty).
        expect(await space()).to.be.below((SNAPSHOTS_KEPT + 3) * each);
      } finally {
        await pool.end();
      }
    });
  });

  it('`replay snapshots` checks every stored snapshot against the log, and names the ones that differ, even those recovery cannot see', async () => {
    await inOwnDatabase('exchange_snapshot_check', async (own) => {
      const live = await openInstance(own, { SNAPSHOT_EVERY_EVENTS: '0' });
      let older: number;
      let newer: number;
      try {
        older = await sessionThenSnapshot(live, 91, 200);
        newer = await sessionThenSnapshot(live, 92, 200);
        await runSession(live.service, new RandomSession(live.exchange.state, 93), 50);
        await live.persistence.durable(live.exchange.seq);
      } finally {
        await live.close();
      }
      const check = async (): Promise<{ code: number; stdout: string; stderr: string }> => {
        const cli = new URL('../../replay/cli.ts', import.meta.url).pathname;
        return await new Promise((resolve) => {
          execFile(process.execPath, [cli, 'snapshots', '--database', own], (err, stdout, stderr) => resolve({ code: err === null ? 0 : Number(err.code), stdout, stderr }));
        });
      };
      const before = [await readSnapshot(own, older), await readSnapshot(own, newer)];
      const sound = await check();
      expect(sound.code, sound.stderr).to.equal(0);
      expect(sound.stdout).to.match(new RegExp(`^snapshot at seq ${older}: matches the log \\(state hash [0-9a-f]{64}\\)\nsnapshot at seq ${newer}: matches the log`));
      // Restores, and every later event applies to it: recovery would use it. A market's reference price is off.
      await rewriteSnapshot(own, newer, (snapshot) => withSection(snapshot, 'markets', (items) => (items as { reference_price: number | null }[]).map((m, i) => (i === 0 ? { ...m, reference_price: (m.reference_price ?? 0) + 1 } : m))));
      await rewriteSnapshot(own, older, (snapshot) => withSection(snapshot, 'orders', () => 'not orders'));
      const wrong = await check();
      expect(wrong.code).to.equal(1);
      expect(wrong.stdout).to.include(`snapshot at seq ${older}: DIFFERS from the log: it cannot be restored: `);
      expect(wrong.stdout).to.match(new RegExp(`snapshot at seq ${newer}: DIFFERS from the log: it restores to state hash [0-9a-f]{64}, the log folds to [0-9a-f]{64}`));
      expect(wrong.stderr).to.include('2 of 2 snapshots differ from the log');
      // What the state hash does not cover but a start restores: the head's time (the clock goes on
      // from it). The count of fills (which a reset reports) is live state, which the hash covers.
      await storeSnapshot(own, older, before[0]);
      await storeSnapshot(own, newer, { ...before[1], head: { ...before[1]?.head, time: '2099-01-01T00:00:00.000000Z' } });
      const timed = await check();
      expect(timed.code).to.equal(1);
      expect(timed.stdout).to.include(`snapshot at seq ${older}: matches the log`);
      expect(timed.stdout).to.include(`snapshot at seq ${newer}: DIFFERS from the log: its time is "2099-01-01T00:00:00.000000Z", the log's "`);
      await storeSnapshot(own, newer, { ...before[1], head: { ...before[1]?.head, fills_total: (before[1]?.head.fills_total ?? 0) + 1000 } });
      expect((await check()).stdout).to.match(new RegExp(`snapshot at seq ${newer}: DIFFERS from the log: it restores to state hash [0-9a-f]{64}, the log folds to [0-9a-f]{64}`));
      // A digest that does not match, and a chain hash of another log.
      await sql(own, `update snapshots set state_sha256 = repeat('0', 64) where seq = $1`, [older]);
      await sql(own, `update snapshots set chain_hash = repeat('e', 64) where seq = $1`, [newer]);
      const tampered = await check();
      expect(tampered.code).to.equal(1);
      expect(tampered.stdout).to.include(`snapshot at seq ${older}: DIFFERS from the log: its SHA-256 does not match its content`);
      expect(tampered.stdout).to.include(`snapshot at seq ${newer}: DIFFERS from the log: its chain hash ${'e'.repeat(64)} is not the log's at seq ${newer}`);
      expect(tampered.stderr).to.include(`delete from snapshots where seq in (${older}, ${newer})`);
      // Another build's format: recovery skips it and this build cannot restore it, so it is listed as
      // not checked and not called wrong (it was `DIFFERS ... cannot be restored`, exit 1).
      await storeSnapshot(own, older, before[0]);
      await storeSnapshot(own, newer, before[1]);
      await sql(own, `update snapshots set chain_hash = (select hash from events where seq = $1) where seq = $1`, [newer]);
      await sql(own, `update snapshots set format_version = format_version - 1 where seq = $1`, [older]);
      const old = await check();
      expect(old.code, old.stderr).to.equal(0);
      expect(old.stdout).to.match(new RegExp(`snapshot at seq ${older}: not checked: its format \\d+ is not this build's \\(\\d+\\): recovery skips it\nsnapshot at seq ${newer}: matches the log`));
      // A log that ends before a snapshot lost events the snapshot covers: the advice is to restore the
      // log, not to delete the snapshot (which would let the exchange start without those events).
      await sql(own, `set session_replication_role = replica; delete from events where seq > ${newer - 5}`);
      const cut = await check();
      expect(cut.code).to.equal(1);
      expect(cut.stdout).to.include(`snapshot at seq ${newer}: PAST THE LOG'S END: the log ends at seq ${newer - 5}, before it`);
      expect(cut.stderr).to.include(`the log ends before 1 of 2 snapshots (seq ${newer}): it is missing events they cover`);
      expect(cut.stderr).to.include('restore the log from a backup');
      expect(cut.stderr).to.not.include('delete from snapshots');
      // Past the end whatever its format: the log once reached its seq.
      await sql(own, `update snapshots set format_version = format_version - 1 where seq = $1`, [newer]);
      const cutOld = await check();
      expect(cutOld.code).to.equal(1);
      expect(cutOld.stdout).to.include(`snapshot at seq ${newer}: PAST THE LOG'S END: the log ends at seq ${newer - 5}, before it`);
    });
  });
});
