// MultiCopy against a real PostgreSQL: several COPY FROM STDIN in one simple query, each fed its own
// payload, in one transaction; a failure anywhere (a bad row, the commit, the connection, a mismatch of
// COPYs and payloads, query_timeout) rejects and leaves nothing committed; a payload far larger than
// the socket's buffer goes out as the server reads it, not piled up in memory.
import { expect } from 'chai';
import pg from 'pg';
import { MultiCopy, type CopyPayload } from '../../src/server/persistence/postgres/multi-copy.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { until } from './support/harness.ts';
import { TcpProxy } from './support/tcp-proxy.ts';

const CHANNEL = 'multi_copy_log';
/** A piece the size the batch writer sends (PIECE_CHARS): 512 rows of 96 bytes. */
const ROW = `${'x'.repeat(95)}\n`;
const PIECE = ROW.repeat(512);
const ROWS_PER_PIECE = 512;

/** begin; notify; one COPY per table; commit: the shape of the batch writer's query. */
function transaction(seq: number, tables: readonly string[]): string {
  const copies = tables.map((t) => `copy ${t} (${t === 'big' ? 'v' : 'id, v'}) from stdin`);
  return `begin; notify ${CHANNEL}, '${seq}'; ${copies.join('; ')}; commit`;
}

function rows(from: number, n: number, text: string): string[] {
  return Array.from({ length: n }, (_, i) => `${from + i}\t${text}${from + i}\n`);
}

/** The error `done` rejected with (fails the test if it resolved). */
async function rejection(multi: MultiCopy): Promise<Error & { code?: string }> {
  try {
    await multi.done;
  } catch (err) {
    expect(err).to.be.instanceOf(Error);
    return err as Error & { code?: string };
  }
  throw new Error(`expected done to reject; it resolved with ${JSON.stringify(multi.copied)}`);
}

describe('MultiCopy: several COPY FROM STDIN in one query', function () {
  this.timeout(60_000);
  let url: string;
  let admin: pg.Client;
  let listener: pg.Client;
  const notifications: string[] = [];
  /** Rows of `a` and `b` seen from another session the moment each notification arrived. */
  const seenAtNotify: Promise<string>[] = [];
  const open: pg.Client[] = [];

  async function connect(config: pg.ClientConfig = {}): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url, ...config });
    // A terminated connection is also reported as the client's 'error'; the tests judge it by done.
    client.on('error', () => {});
    await client.connect();
    open.push(client);
    return client;
  }

  async function count(table: string): Promise<number> {
    const { rows: [row] } = await admin.query<{ n: number }>(`select count(*)::int as n from ${table}`);
    return row?.n ?? -1;
  }

  async function contents(table: string): Promise<string[]> {
    const result = await admin.query<{ line: string }>(`select id || ' ' || v as line from ${table} order by id`);
    return result.rows.map((r) => r.line);
  }

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_multicopy');
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`
      create table a (id int primary key, v text not null);
      create table b (id int primary key, v text not null);
      create table c (id int primary key, v text not null);
      -- checked at commit: a duplicate fails the COMMIT, not the COPY
      create table d (id int not null, v text not null, unique (id) deferrable initially deferred);
      create unlogged table big (v text not null);
    `);
    listener = await connect();
    listener.on('notification', (msg) => {
      notifications.push(msg.payload ?? '');
      seenAtNotify.push(admin.query<{ n: string }>(`select (select count(*) from a) || '/' || (select count(*) from b) as n`).then((r) => r.rows[0]?.n ?? ''));
    });
    await listener.query(`listen ${CHANNEL}`);
  });

  beforeEach(async () => {
    await admin.query('truncate a, b, c, d, big');
    notifications.length = 0;
    seenAtNotify.length = 0;
  });

  afterEach(async () => {
    for (const client of open.splice(listener === undefined ? 0 : 1)) await client.end().catch(() => {});
  });

  after(async () => {
    for (const client of open.splice(0)) await client.end().catch(() => {});
    await admin?.end();
    if (url !== undefined) await dropDatabase(url);
  });

  /** Waits for the notifications committed so far, then checks no more came (a round trip later). */
  async function notified(expected: readonly string[]): Promise<void> {
    await until(`notifications ${expected.join(',')}`, () => notifications.length >= expected.length);
    await listener.query('select 1');
    expect(notifications).to.deep.equal(expected);
  }

  it('two COPYs in one transaction: each table gets its own payload, the NOTIFY arrives once, at the commit', async () => {
    const client = await connect();
    const multi = client.query(new MultiCopy(transaction(7, ['a', 'b']), [rows(1, 3, 'event'), [rows(1, 2, 'fill').join('')]]));
    expect(await multi.done).to.deep.equal([3, 2]);
    expect(multi.copied).to.deep.equal([3, 2]);
    expect(await contents('a')).to.deep.equal(['1 event1', '2 event2', '3 event3']);
    expect(await contents('b')).to.deep.equal(['1 fill1', '2 fill2']);
    await notified(['7']);
    // Another session saw both tables' rows when the notification came: it went out with the commit.
    expect(await Promise.all(seenAtNotify)).to.deep.equal(['3/2']);
    expect(client.getTransactionStatus()).to.equal('I');
  });

  it('three COPYs with other statements among them (one returning rows), string and Buffer pieces', async () => {
    const client = await connect();
    const text = `begin; notify ${CHANNEL}, '9'; copy a (id, v) from stdin; select 1 as ignored; copy b (id, v) from stdin; copy c (id, v) from stdin; commit`;
    const payloads: CopyPayload[] = [rows(1, 2, 'a'), rows(1, 4, 'b').map((r) => Buffer.from(r)), [Buffer.from(rows(1, 1, 'ç✓').join(''))]];
    const multi = client.query(new MultiCopy(text, payloads));
    expect(await multi.done).to.deep.equal([2, 4, 1]);
    expect(await contents('a')).to.deep.equal(['1 a1', '2 a2']);
    expect(await contents('b')).to.deep.equal(['1 b1', '2 b2', '3 b3', '4 b4']);
    expect(await contents('c')).to.deep.equal(['1 ç✓1']);
    await notified(['9']);
  });

  it('an empty payload (or one of empty pieces) copies 0 rows and the others go on', async () => {
    const client = await connect();
    const multi = client.query(new MultiCopy(transaction(3, ['a', 'b', 'c']), [[], ['', Buffer.alloc(0)], rows(1, 2, 'c')]));
    expect(await multi.done).to.deep.equal([0, 0, 2]);
    expect(await count('a')).to.equal(0);
    expect(await count('b')).to.equal(0);
    expect(await contents('c')).to.deep.equal(['1 c1', '2 c2']);
    await notified(['3']);
  });

  it('a bad row in the second COPY: rejected with the server error after ReadyForQuery, nothing committed, no NOTIFY', async () => {
    // Through a proxy that holds back what follows an ErrorResponse: the ReadyForQuery comes in a read
    // of its own, later, so a rejection at the ErrorResponse would be seen before it.
    const proxy = new TcpProxy(url, { holdAfterErrorMs: 50 });
    await proxy.start();
    const client = await connect({ connectionString: proxy.via(url) });
    try {
      const multi = client.query(new MultiCopy(transaction(1, ['a', 'b']), [rows(1, 3, 'event'), ['1\tfine\n', 'x\tbad\n']]));
      const err = await rejection(multi);
      expect(err).to.be.instanceOf(pg.DatabaseError);
      expect(err.message).to.equal('invalid input syntax for type integer: "x"');
      expect(err.code).to.equal('22P02');
      // The status is the one of the query's ReadyForQuery (a failed transaction block): done waited for it.
      expect(client.getTransactionStatus()).to.equal('E');
      expect(multi.copied, 'the first COPY completed before the error').to.deep.equal([3]);
      expect(await count('a')).to.equal(0);
      expect(await count('b')).to.equal(0);
      // After an error inside an explicit begin the session must roll back; then it works as before.
      await client.query('rollback');
      const next = client.query(new MultiCopy(transaction(2, ['a', 'b']), [rows(1, 1, 'again'), rows(1, 1, 'again')]));
      expect(await next.done).to.deep.equal([1, 1]);
      expect(await contents('a')).to.deep.equal(['1 again1']);
      // Notifications arrive in commit order: only the second transaction's.
      await notified(['2']);
    } finally {
      await client.end();
      await proxy.close();
    }
  });

  it('a failing COMMIT (a deferred unique check) or a failing statement before any COPY: rejected, nothing committed', async () => {
    const client = await connect();
    const atCommit = client.query(new MultiCopy(transaction(1, ['a', 'd']), [rows(1, 2, 'a'), ['5\tone\n', '5\ttwo\n']]));
    const err = await rejection(atCommit);
    expect(err.code).to.equal('23505');
    expect(atCommit.copied, 'both COPYs completed; the commit failed').to.deep.equal([2, 2]);
    expect(await count('a')).to.equal(0);
    expect(await count('d')).to.equal(0);
    // A failed COMMIT ends the transaction block: the session is usable at once.
    expect(client.getTransactionStatus()).to.equal('I');

    const before = client.query(new MultiCopy(`begin; select 1 / 0; copy a (id, v) from stdin; commit`, [rows(1, 2, 'a')]));
    const err2 = await rejection(before);
    expect(err2.code).to.equal('22012');
    expect(before.copied).to.deep.equal([]);
    await client.query('rollback');
    expect(await count('a')).to.equal(0);
    await notified([]);
  });

  it('more COPYs than payloads: the extra COPY gets CopyFail, the query is rejected with a clear message, nothing committed', async () => {
    const client = await connect();
    const multi = client.query(new MultiCopy(transaction(1, ['a', 'b', 'c']), [rows(1, 2, 'a'), rows(1, 2, 'b')]));
    const err = await rejection(multi);
    expect(err.message).to.equal('MultiCopy: the query has more COPY FROM STDIN statements than the 2 payloads given');
    expect((err.cause as pg.DatabaseError).message).to.equal(`COPY from stdin failed: ${err.message}`);
    expect(multi.copied).to.deep.equal([2, 2]);
    expect(await count('a')).to.equal(0);
    expect(await count('b')).to.equal(0);
    await client.query('rollback');
    await notified([]);
  });

  it('fewer COPYs than payloads: rejected with a clear message (the statements did run)', async () => {
    const client = await connect();
    const multi = client.query(new MultiCopy('copy a (id, v) from stdin', [rows(1, 2, 'a'), rows(1, 2, 'b')]));
    const err = await rejection(multi);
    expect(err.message).to.equal('MultiCopy: the query had 1 COPY FROM STDIN statements, 2 payloads were given; its statements ran');
    expect(await count('a')).to.equal(2);
  });

  it('a 50 MB payload in 48 KiB pieces goes out as the server reads it: memory grows by far less than the payload', async () => {
    const client = await connect();
    // One string repeated: the payload array costs nothing, but every write makes a new Buffer, so
    // pieces written without waiting for the socket would pile up (~50 MB) until the server read them.
    const pieces = 1067;
    const payload: string[] = new Array<string>(pieces).fill(PIECE);
    const payloadBytes = pieces * Buffer.byteLength(PIECE);
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    try {
      const multi = client.query(new MultiCopy('copy big (v) from stdin', [payload]));
      expect(await multi.done).to.deep.equal([pieces * ROWS_PER_PIECE]);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const grew = peak - base;
    expect(payloadBytes).to.be.greaterThan(50 * 1024 * 1024);
    expect(grew, `rss grew ${(grew / 2 ** 20).toFixed(1)} MiB for a ${(payloadBytes / 2 ** 20).toFixed(1)} MiB payload`).to.be.lessThan(payloadBytes / 5);
    expect(await count('big')).to.equal(pieces * ROWS_PER_PIECE);
  });

  /** A payload of ~2 GB (one string repeated) that cannot be written before the test stops it. */
  const endless = (): string[] => new Array<string>(40_000).fill(PIECE);

  /** Waits until the server has read COPY data into `table` from the session `pid`. */
  async function copyingInto(pid: number, table: string): Promise<void> {
    await until(`COPY into ${table} under way`, async () => {
      const { rows: progress } = await admin.query<{ bytes: string }>(
        'select bytes_processed::text as bytes from pg_stat_progress_copy where pid = $1 and relid = $2::regclass',
        [pid, table],
      );
      return Number(progress[0]?.bytes ?? 0) > 0;
    });
  }

  it('the backend terminated in the middle of the second COPY: rejected, no rows of either COPY', async () => {
    const client = await connect();
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid as number;
    const multi = client.query(new MultiCopy(transaction(1, ['a', 'big']), [rows(1, 3, 'a'), endless()]));
    await copyingInto(pid, 'big');
    await admin.query('select pg_terminate_backend($1)', [pid]);
    const err = await rejection(multi);
    // The server's FATAL error, or the connection's end if the socket broke first.
    expect(err.message).to.match(/terminating connection due to administrator command|Connection terminated|ECONNRESET|EPIPE/);
    expect(multi.copied).to.deep.equal([3]);
    expect(await count('a')).to.equal(0);
    expect(await count('big')).to.equal(0);
    await notified([]);
  });

  it('the connection dropped on this side in the middle of a COPY (what the writer does on a flush timeout): rejected, no rows', async () => {
    const client = await connect();
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid as number;
    const multi = client.query(new MultiCopy(transaction(1, ['big', 'a']), [endless(), rows(1, 3, 'a')]));
    await copyingInto(pid, 'big');
    // As WriterSession.discard: the socket destroyed, then the client ended.
    client.connection.stream.destroy();
    void client.end().catch(() => {});
    const err = await rejection(multi);
    expect(err.message).to.equal('Connection terminated');
    expect(multi.copied).to.deep.equal([]);
    await until('the backend gone', async () => (await admin.query('select 1 from pg_stat_activity where pid = $1', [pid])).rows.length === 0);
    expect(await count('big')).to.equal(0);
    expect(await count('a')).to.equal(0);
  });

  it('query_timeout during a COPY ends it with CopyFail: rejected, nothing committed, the client usable again', async () => {
    const client = await connect({ query_timeout: 500 });
    const multi = client.query(new MultiCopy(transaction(1, ['a', 'big']), [rows(1, 3, 'a'), endless()]));
    const err = await rejection(multi);
    expect(err.message).to.equal('Query read timeout');
    // The server was told the COPY failed, so it answers and the next query runs (else this hangs).
    await client.query('rollback');
    expect((await client.query<{ one: number }>('select 1 as one')).rows[0]?.one).to.equal(1);
    expect(await count('a')).to.equal(0);
    expect(await count('big')).to.equal(0);
  });

  it('query_timeout: a query that ends in time clears its timer', async () => {
    const client = await connect({ query_timeout: 60_000 });
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const multi = client.query(new MultiCopy(transaction(1, ['a']), [rows(1, 2, 'a')]));
    expect(timers(), "pg's query_timeout timer").to.equal(before + 1);
    expect(await multi.done).to.deep.equal([2]);
    expect(timers()).to.equal(before);
    await notified(['1']);
  });

  it('query_timeout while the query waits for a lock: the COPY that comes later gets CopyFail, the client usable again', async () => {
    const holder = await connect();
    await holder.query('begin; lock table a in access exclusive mode');
    const client = await connect({ query_timeout: 300 });
    const multi = client.query(new MultiCopy(transaction(1, ['a']), [rows(1, 3, 'a')]));
    const err = await rejection(multi);
    expect(err.message).to.equal('Query read timeout');
    await holder.query('commit');
    // Queued behind the abandoned query: runs once the server has answered it.
    await client.query('rollback');
    expect((await client.query<{ one: number }>('select 1 as one')).rows[0]?.one).to.equal(1);
    expect(multi.copied).to.deep.equal([]);
    expect(await count('a')).to.equal(0);
    await notified([]);
  });
});
