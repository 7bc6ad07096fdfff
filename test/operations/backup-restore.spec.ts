// Backup and restore: a log exported from a server on PostgreSQL (`replay export`) and imported into a
// fresh database (`replay import`) starts a server with the same state hash, every row's canonical
// text and hash byte for byte the same; a non-empty target, a tampered log, a log without hashes, a
// missing file and an unreachable database are refused with the documented exit codes, changing nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { ADMIN_TOKEN, startTestServer } from '../support/server.ts';
import { RandomSession, runSession } from '../postgres/support/random-session.ts';
import { PROCESS_ADMIN_TOKEN, spawnServer } from '../postgres/support/server-process.ts';

const CLI = new URL('../../replay/cli.ts', import.meta.url).pathname;

function replay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : Number((err as { code?: number }).code), stdout, stderr });
    });
  });
}

async function rows(url: string): Promise<{ seq: string; type: string; time: string; hash: string; canonical: string }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('select seq::text, type, time, hash, canonical from events order by seq')).rows;
  } finally {
    await client.end();
  }
}

async function stateHash(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/admin/state-hash`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).to.equal(200);
  return ((await res.json()) as { state_hash: string }).state_hash;
}

describe('operations: backup and restore (replay export, replay import)', function () {
  this.timeout(60_000);
  const tmp = mkdtempSync(join(tmpdir(), 'restore-test-'));
  const databases: string[] = [];
  let source: string;
  let exported: string;
  let sourceHash: string;
  let sourceSeq: number;

  const database = async (): Promise<string> => {
    const url = await createDatabase('restore');
    databases.push(url);
    return url;
  };

  before(async function () {
    await requirePostgres(this);
    source = await database();
    const server = await startTestServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: source, SNAPSHOT_EVERY_EVENTS: '200' });
    try {
      // Every kind of command, message bodies with tabs, backslashes, NUL and lone surrogates included.
      const session = new RandomSession(server.context.service.state, 4242);
      await runSession(server.context.service, session, 700);
      sourceSeq = server.context.service.exchange.seq;
      sourceHash = await stateHash(server.url, ADMIN_TOKEN);
    } finally {
      await server.close();
    }
    exported = join(tmp, 'log.ndjson');
    const r = await replay('export', '--database', source, '--out', exported, '--quiet');
    expect(r.code, r.stderr).to.equal(0);
  });
  after(async () => {
    for (const url of databases) await dropDatabase(url).catch(() => {});
  });

  it('imports into a fresh database, and a server started on it has the same state hash and the same rows', async () => {
    const target = await database();
    const r = await replay('import', '--file', exported, '--database', target, '--quiet');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(new RegExp(`^ok: imported ${sourceSeq} events into .*every chain hash verified; head hash [0-9a-f]{64}\\n$`));
    expect(await rows(target)).to.deep.equal(await rows(source));

    const restored = await spawnServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: target });
    try {
      expect(await stateHash(restored.url, PROCESS_ADMIN_TOKEN)).to.equal(sourceHash);
      // And it goes on from there: the next event chains onto the restored head.
      const res = await fetch(`${restored.url}/api/v1/admin/users`, { method: 'POST', headers: { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{"username":"after_restore"}' });
      expect(res.status).to.equal(201);
    } finally {
      await restored.kill('SIGTERM');
    }
    const verify = await replay('verify', '--database', target);
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout).to.include(`ok: ${sourceSeq + 1} events`);

    // Refused: the same import again (the database is not empty now), nothing changes.
    const again = await replay('import', '--file', exported, '--database', target, '--quiet');
    expect(again.code).to.equal(4);
    expect(again.stderr).to.match(/is not empty \(\d+ events, \d+ snapshots\): import restores only into an empty database/);
    expect((await rows(target)).length).to.equal(sourceSeq + 1);
  });

  it('refuses while an exchange runs on the target', async () => {
    const target = await database();
    const running = await spawnServer({ STORAGE_BACKEND: 'postgres', DATABASE_URL: target });
    try {
      const r = await replay('import', '--file', exported, '--database', target, '--quiet');
      expect(r.code).to.equal(4);
      expect(r.stderr).to.include('another exchange instance holds the log');
    } finally {
      await running.kill('SIGTERM');
    }
    expect(await rows(target)).to.deep.equal([]);
  });

  it('refuses a tampered log or one without hashes before touching the database (exit 1), a missing file or database (exit 3), bad usage (exit 2)', async () => {
    const lines = readFileSync(exported, 'utf8').split('\n').filter((l) => l !== '');
    const at = lines.findIndex((l) => l.includes('"type":"OrderSubmitted"'));
    expect(at).to.be.above(0);
    const tampered = join(tmp, 'tampered.ndjson');
    writeFileSync(tampered, lines.map((l, i) => (i === at ? l.replace(/"quantity":(\d+)/, (_, q: string) => `"quantity":${Number(q) + 1}`) : l)).join('\n') + '\n');
    const unhashed = join(tmp, 'unhashed.ndjson');
    writeFileSync(unhashed, lines.map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, unknown>).filter(([k]) => k !== 'hash')))).join('\n') + '\n');

    const target = await database();
    const bad = await replay('import', '--file', tampered, '--database', target, '--quiet');
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include(`log fault at seq ${at + 1}: hash does not match`);
    const bare = await replay('import', '--file', unhashed, '--database', target, '--quiet');
    expect(bare.code).to.equal(1);
    expect(bare.stderr).to.include('log fault at seq 1: line 1 carries no chain hash');
    const missing = await replay('import', '--file', join(tmp, 'nope.ndjson'), '--database', target, '--quiet');
    expect(missing.code).to.equal(3);
    const unreachable = await replay('import', '--file', exported, '--database', 'postgres://postgres@127.0.0.1:1/none', '--quiet');
    expect(unreachable.code).to.equal(3);
    expect(unreachable.stderr).to.include('cannot reach PostgreSQL');
    const usage = await replay('import', '--file', exported);
    expect(usage.code).to.equal(2);
    // Nothing reached the target: not even the schema (verification comes first).
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      expect((await client.query("select to_regclass('public.events') as t")).rows[0].t).to.equal(null);
    } finally {
      await client.end();
    }
  });
});
