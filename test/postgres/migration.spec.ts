// Migration 005 (the events table without its jsonb copy of the data): a log written under the schema
// of migrations 001-004 is carried forward byte for byte, the service recovers it to the same state,
// the chain still verifies, new events append after it, and the operator views answer as before.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { Exchange } from '../../src/commands/exchange.ts';
import { isDomainError } from '../../src/commands/errors.ts';
import { canonicalJson } from '../../src/events/canonical.ts';
import { GENESIS_HASH, sha256Hex } from '../../src/events/hash.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { AdmissionClock } from '../../src/server/clock.ts';
import { migrate, MIGRATIONS_DIR } from '../../src/server/persistence/postgres/migrator.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { checkChain, openInstance, sql, storedLog } from './support/harness.ts';
import { RandomSession, runSession, type Build } from './support/random-session.ts';

describe('PostgreSQL migration 005: events without the jsonb copy', function () {
  this.timeout(60_000);
  let url: string;
  let oldDir: string;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_migration');
    oldDir = mkdtempSync(join(tmpdir(), 'migrations-'));
    for (const f of readdirSync(MIGRATIONS_DIR).filter((x) => /^00[1-4]_/.test(x))) cpSync(join(MIGRATIONS_DIR, f), join(oldDir, f));
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
    if (oldDir !== undefined) rmSync(oldDir, { recursive: true, force: true });
  });

  it('carries an old log forward exactly: same bytes, same hashes, same state, and appends after it', async () => {
    // A log as the service wrote it before migration 005: data as jsonb (NUL and lone surrogates as U+FFFD).
    const source = new Exchange();
    const clock = new AdmissionClock();
    const builds = new RandomSession(source.state, 15, 10).builds();
    const rows: { seq: number; type: string; time: string; data: string; hash: string; canonical: string }[] = [];
    let hash = GENESIS_HASH;
    while (rows.length < 1500) {
      let event;
      try {
        event = source.execute((builds.next().value as Build)(clock.stamp()));
      } catch (err) {
        if (!isDomainError(err)) throw err;
        continue;
      }
      const canonical = canonicalJson(event);
      hash = sha256Hex(hash + canonical);
      const data = canonicalJson(event.data).replace(/\\u0000|\\ud[89a-f][0-9a-f]{2}/g, '\\ufffd');
      rows.push({ seq: event.seq, type: event.type, time: event.time, data, hash, canonical });
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrate(client, oldDir);
      for (const r of rows) await client.query('insert into events (seq, type, time, data, hash, canonical) values ($1, $2, $3, $4, $5, $6)', [r.seq, r.type, r.time, r.data, r.hash, r.canonical]);
    } finally {
      await client.end();
    }
    const fillsBefore = await sql<{ n: string }>(url, 'select count(*) as n from fills');
    const ordersBefore = await sql<{ order_id: string; status: string; remaining: string }>(url, 'select order_id, status, remaining from orders order by order_id');

    // The service migrates at startup and recovers the whole log through the chain.
    const instance = await openInstance(url, { SNAPSHOT_EVERY_EVENTS: '0' });
    try {
      expect(instance.exchange.seq).to.equal(rows.length);
      expect(stateHash(instance.exchange.state)).to.equal(stateHash(source.state));
      const columns = await sql<{ column_name: string }>(url, "select column_name from information_schema.columns where table_name = 'events' order by ordinal_position");
      expect(columns.map((c) => c.column_name)).to.deep.equal(['seq', 'type', 'time', 'hash', 'canonical']);
      const stored = await sql<{ seq: string; hash: string; canonical: string }>(url, 'select seq, hash, canonical from events order by seq');
      expect(stored.map((r) => [Number(r.seq), r.hash, r.canonical])).to.deep.equal(rows.map((r) => [r.seq, r.hash, r.canonical]));
      // New events chain on from the migrated head.
      await runSession(instance.service, new RandomSession(instance.exchange.state, 16, 4), 200);
      await instance.persistence.durable(instance.exchange.seq);
    } finally {
      await instance.close();
    }
    checkChain(await storedLog(url));
    // The operator views answer as they did over the jsonb column.
    const fillsAfter = await sql<{ n: string }>(url, 'select count(*) as n from fills where seq <= $1', [rows.length]);
    expect(fillsAfter[0]?.n).to.equal(fillsBefore[0]?.n);
    expect(Number(fillsBefore[0]?.n)).to.be.greaterThan(0);
    const ordersAfter = await sql<{ order_id: string; status: string; remaining: string }>(url, 'select order_id, status, remaining from orders where submitted_seq <= $1 and last_seq <= $1 order by order_id', [rows.length]);
    const stillSame = ordersBefore.filter((o) => ordersAfter.some((a) => a.order_id === o.order_id));
    expect(ordersAfter).to.deep.equal(stillSame);
    expect(stillSame.length).to.be.greaterThan(0);
  });

  it('event_data() shows NUL and lone surrogates as U+FFFD and everything else exactly', async () => {
    const rows = await sql<{ d: { body: string } }>(url, `select event_data($1) as d`, [canonicalJson({ data: { body: 'a\u0000b\ud800c \\ "q" ✓' }, seq: 1, time: 't', type: 'X' })]);
    expect(rows[0]?.d.body).to.equal('a\ufffdb\ufffdc \\ "q" ✓');
  });
});
