// The batch writer against a real PostgreSQL: what the service appends arrives in the database
// exactly once, in order, chained, batched as configured; durable() resolves with the commit.
import { expect } from 'chai';
import { canonicalJson } from '../../src/events/canonical.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { checkChain, openInstance, sql, storedLog } from './support/harness.ts';
import { RandomSession, runConcurrently, runSession } from './support/random-session.ts';

describe('PostgreSQL batch writer', function () {
  this.timeout(60_000);
  let url: string;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_writer');
  });
  after(async () => {
    if (url !== undefined) await dropDatabase(url);
  });

  it('writes every accepted event once, in order, with a valid chain, in batches of the configured size', async () => {
    const instance = await openInstance(url, { POSTGRES_WRITE_BATCH_SIZE: '64', POSTGRES_WRITE_FLUSH_INTERVAL_MS: '5' });
    const session = new RandomSession(instance.exchange.state, 1);
    const result = await runSession(instance.service, session, 3000).finally(() => instance.close());
    expect(result.accepted).to.be.greaterThan(1000);
    const status = instance.persistence.status();
    expect(status.mode).to.equal('stopped');
    expect(status.total_enqueued).to.equal(result.accepted);
    expect(status.durable_seq).to.equal(result.accepted);
    // Batches never exceed the configured size.
    expect(status.total_flushes).to.be.at.least(Math.ceil(result.accepted / 64));

    const stored = await storedLog(url);
    checkChain(stored);
    expect(stored.map((r) => canonicalJson(r.event))).to.deep.equal(result.events.map((e) => canonicalJson(e)));
    // Full batches queued behind the one on its way had their COPY data built ahead, and that data is
    // what was stored (the chain and the texts above).
    expect(instance.persistence.writer.payloadsBuiltAhead).to.be.greaterThan(0);
  });

  it('keeps text exactly, NUL and lone surrogates included (the parsed data shows U+FFFD; the canonical record is exact)', async () => {
    const rows = await sql<{ body: string; canonical: string }>(url, "select data->>'body' as body, canonical from events_with_data where type = 'AdminMessagePosted' and canonical like '%nul\\\\u0000inside%'");
    expect(rows.length).to.be.greaterThan(0);
    for (const row of rows) {
      expect(row.body).to.equal('nul\ufffdinside');
      expect((JSON.parse(row.canonical) as { data: { body: string } }).data.body).to.equal('nul\u0000inside');
    }
    const bodies = await sql<{ body: string }>(url, "select data->>'body' as body from events_with_data where type = 'AdminMessagePosted'");
    expect(bodies.map((b) => b.body)).to.include.members(['tab\there', 'back\\slash \\N \\t', 'ünïcødé ✓ 🚀']);
  });

  it('resolves durable(seq) only once the batch holding seq has committed (group commit)', async () => {
    const instance = await openInstance(url, { POSTGRES_WRITE_BATCH_SIZE: '1000', POSTGRES_WRITE_FLUSH_INTERVAL_MS: '60000', POSTGRES_DURABLE_ACKS: 'true' });
    const session = new RandomSession(instance.exchange.state, 2);
    const head = instance.exchange.seq;
    // Each command's reply waits for durability; a long interval would hold them if waiting did not flush.
    const started = performance.now();
    const result = await runConcurrently(instance.service, session, 500).catch(async (err: unknown) => {
      await instance.close();
      throw err;
    });
    expect(performance.now() - started).to.be.lessThan(10_000);
    const committed = await sql<{ max: string }>(url, 'select max(seq) as max from events');
    expect(Number(committed[0]?.max)).to.be.at.least(Math.max(...result.events.map((e) => e.seq)));
    expect(instance.persistence.status().durable_seq).to.equal(head + result.accepted);
    // Group commit: far fewer transactions than commands.
    expect(instance.persistence.status().total_flushes).to.be.lessThan(result.accepted / 2);
    await instance.close();
  });

  it('refuses a second instance on the same database at once, naming the reason', async () => {
    const first = await openInstance(url);
    try {
      const started = performance.now();
      let error: unknown = null;
      await openInstance(url).catch((err: unknown) => (error = err));
      expect(String(error)).to.match(/another exchange instance holds the log/);
      expect(performance.now() - started).to.be.lessThan(3000);
    } finally {
      await first.close();
    }
    // Once the first has stopped, the lock is free again.
    const again = await openInstance(url);
    await again.close();
  });
});
