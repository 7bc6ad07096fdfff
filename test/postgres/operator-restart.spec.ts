// The schedule and the official leaderboard across restarts on PostgreSQL: an entry due while the
// server was down runs at once after the restart, each entry runs exactly once, and frozen standings
// survive the restart unchanged and are proved by `replay prove` from the database and from an export.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { RunningServer } from '../../src/server/app.ts';
import type { PostgresPersistence } from '../../src/server/persistence/postgres/postgres-persistence.ts';
import { Client } from '../http/support/client.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';
import { sql, until } from './support/harness.ts';

const run = promisify(execFile);
const CLI = new URL('../../replay/cli.ts', import.meta.url).pathname;

async function replay(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function scheduledEvents(url: string): Promise<{ entry: string; type: string; seq: number }[]> {
  const rows = await sql<{ seq: string; type: string; entry: string }>(url, "select seq, type, data->>'schedule_entry' as entry from events_with_data where data ? 'schedule_entry' order by seq");
  return rows.map((r) => ({ entry: r.entry, type: r.type, seq: Number(r.seq) }));
}

describe('PostgreSQL: the schedule and the official leaderboard across restarts', function () {
  this.timeout(120_000);
  let url: string;
  let dir: string;
  let server: RunningServer | null = null;

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_operator');
    dir = await mkdtemp(join(tmpdir(), 'exchange-operator-'));
  });
  after(async () => {
    await server?.close();
    if (url !== undefined) await dropDatabase(url);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('runs an entry due during the downtime once after the restart; frozen standings are unchanged and proved by replay prove', async () => {
    // Snapshots every few events: recovery restores the schedule and the standings from one, then folds the tail.
    const env = { STORAGE_BACKEND: 'postgres', DATABASE_URL: url, SNAPSHOT_EVERY_EVENTS: '4' };
    server = await startTestServer(env);
    let c = new Client(server.url);
    const bulk = await c.admin<{ profiles: { api_key: string }[] }>('POST', '/api/v1/admin/users/bulk', ['alice', 'bob', 'carol']);
    expect(bulk.status).to.equal(201);
    const [a, b] = bulk.body.profiles as [{ api_key: string }, { api_key: string }];
    await c.market({ market_id: 'BTC-USD' });
    await c.order(a.api_key, 'BTC-USD', 'SELL', 100, 5);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 100, 2);
    await c.order(b.api_key, 'BTC-USD', 'BUY', 95, 1);
    const frozen = await c.admin('POST', '/api/v1/admin/leaderboard/freeze', { label: 'round 1' });
    expect(frozen.status).to.equal(201);
    const soon = Date.now() + 400;
    const later = Date.now() + 2500;
    const put = await c.admin<{ pending: { entry_id: string }[] }>('PUT', '/api/v1/admin/schedule', {
      entries: [
        { at: new Date(soon).toISOString(), action: 'stop_trading' },
        { at: new Date(later).toISOString(), action: 'post_message', level: 'info', body: 'round 2 begins' },
      ],
    });
    expect(put.status).to.equal(200);
    const [first, second] = put.body.pending.map((e) => e.entry_id) as [string, string];
    await until('the first entry ran while running', async () => (await c.admin<{ done: unknown[] }>('GET', '/api/v1/admin/schedule')).body.done.length === 1);
    const official = (await c.request('GET', '/api/v1/leaderboard/official')).body;
    await server.close();
    server = null;
    expect(await scheduledEvents(url)).to.have.length(1);

    // The second entry comes due while the server is down.
    await new Promise((r) => setTimeout(r, Math.max(0, later - Date.now() + 100)));
    const snapshots = await sql<{ n: string }>(url, 'select count(*) as n from snapshots');
    expect(Number(snapshots[0]?.n)).to.be.greaterThan(0);
    server = await startTestServer(env);
    expect((server.context.service.persistence as PostgresPersistence).recovery?.snapshotSeq).to.be.greaterThan(0);
    c = new Client(server.url);
    await until('the overdue entry ran after the restart', async () => (await c.admin<{ done: unknown[] }>('GET', '/api/v1/admin/schedule')).body.done.length === 2);
    const schedule = (await c.admin<{ pending: unknown[]; done: { entry_id: string; status: string; seq: number }[] }>('GET', '/api/v1/admin/schedule')).body;
    expect(schedule.pending).to.deep.equal([]);
    expect(schedule.done.map((e) => [e.entry_id, e.status])).to.deep.equal([[first, 'ran'], [second, 'ran']]);
    expect((await c.request('GET', '/api/v1/leaderboard/official')).body).to.deep.equal(official);
    await server.close();
    server = null;

    // A third start runs nothing again: each entry exactly once in the log.
    server = await startTestServer(env);
    await new Promise((r) => setTimeout(r, 300));
    await server.close();
    server = null;
    const ran = await scheduledEvents(url);
    expect(ran.map((e) => [e.entry, e.type])).to.deep.equal([[first, 'TradingStopped'], [second, 'AdminMessagePosted']]);
    expect(ran.map((e) => e.seq)).to.deep.equal(schedule.done.map((e) => e.seq));

    const proved = await replay(['prove', '--database', url, '--label', 'round 1']);
    expect(proved.code, proved.stderr).to.equal(0);
    expect(proved.stdout).to.match(/^proved: "round 1" \(frozen at seq \d+, standings as of seq \d+, 3 rows\)/);
    const file = join(dir, 'log.ndjson');
    expect((await replay(['export', '--database', url, '--out', file, '--quiet'])).code).to.equal(0);
    expect((await replay(['prove', '--file', file, '--label', 'round 1'])).code).to.equal(0);
    expect((await replay(['prove', '--file', file])).code).to.equal(0);
    const missing = await replay(['prove', '--file', file, '--label', 'round 9']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('no frozen standings labelled "round 9"');
    expect((await replay(['audit', '--database', url])).code).to.equal(0);

    // Standings altered in a log without stored hashes (so the chain is computed, not checked): not proved.
    const forged = join(dir, 'forged.ndjson');
    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => {
      const { hash: _hash, ...event } = JSON.parse(l) as { type: string; hash: string; data: { rows?: { net_pnl: number }[] } };
      if (event.type === 'LeaderboardFrozen') (event.data.rows as { net_pnl: number }[])[0]!.net_pnl += 1;
      return JSON.stringify(event);
    });
    await writeFile(forged, lines.join('\n') + '\n');
    const refuted = await replay(['prove', '--file', forged, '--label', 'round 1']);
    expect(refuted.code).to.equal(1);
    expect(refuted.stderr).to.match(/NOT PROVED: "round 1"[\s\S]*standings differ: row 1: recorded/);
  });
});
