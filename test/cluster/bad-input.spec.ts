// A node that cannot vouch for what it would serve does not serve it: an unknown ROLE, a follower
// pointed at an empty or foreign database, a log whose hash chain is broken (at start, or in what the
// follower reads later) end the process with a message that says why.
import { expect } from 'chai';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';
import { RandomSession, runSession } from '../postgres/support/random-session.ts';
import { sql } from '../postgres/support/harness.ts';
import { PROCESS_ADMIN_TOKEN, ROOT } from '../postgres/support/server-process.ts';
import { spawn } from 'node:child_process';
import { nodeEnv, reachSeq, spawnNode } from './support/cluster.ts';

/** Runs the server to its exit; resolves with the exit code and stderr. */
function runToExit(env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['src/server/main.ts'], { cwd: ROOT, env: { ...process.env, BIND_ADDR: '127.0.0.1:0', LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('cluster: bad input ends the process with a clear error', function () {
  this.timeout(60_000);
  const databases: string[] = [];

  before(async function () {
    await requirePostgres(this);
  });
  after(async () => {
    for (const db of databases) await dropDatabase(db);
  });

  async function database(): Promise<string> {
    const url = await createDatabase('exchange_cluster_bad');
    databases.push(url);
    return url;
  }

  /** A log of a short session, written by a leader that is gone again. No snapshots: every link is checked. */
  async function writtenLog(): Promise<string> {
    const url = await database();
    const leader = await startTestServer({ ...nodeEnv(url, 'leader'), ADMIN_API_TOKEN: PROCESS_ADMIN_TOKEN, SNAPSHOT_EVERY_EVENTS: '0', LOG_LEVEL: 'silent' });
    await runSession(leader.context.service, new RandomSession(leader.context.service.state, 3), 60);
    await leader.close();
    return url;
  }

  it('an unknown ROLE: exit 2, naming the variable', async () => {
    const { code, stderr } = await runToExit({ ROLE: 'primary' });
    expect(code).to.equal(2);
    expect(stderr).to.match(/ROLE="primary" must be one of leader, follower, standby/);
  });

  it('a follower without PostgreSQL: exit 2', async () => {
    const { code, stderr } = await runToExit({ ROLE: 'follower' });
    expect(code).to.equal(2);
    expect(stderr).to.match(/ROLE=follower .*STORAGE_BACKEND=postgres/);
  });

  it('a follower on an empty database: exit 1, and the database stays empty', async () => {
    const url = await database();
    const { code, stderr } = await runToExit(nodeEnv(url, 'follower'));
    expect(code).to.equal(1);
    expect(stderr).to.match(/holds no exchange log/);
    expect(await sql(url, "select table_name from information_schema.tables where table_schema = 'public'")).to.deep.equal([]);
  });

  it('a standby on a foreign database (other tables, no log): exit 1', async () => {
    const url = await database();
    await sql(url, 'create table events (id serial primary key, note text)');
    const { code, stderr } = await runToExit(nodeEnv(url, 'standby'));
    expect(code).to.equal(1);
    expect(stderr).to.match(/holds no exchange log/);
  });

  it('a follower on a log whose hash chain is broken: exit 1, naming the seq', async () => {
    const url = await writtenLog();
    await sql(url, "set session_replication_role = replica; update events set hash = repeat('a', 64) where seq = 17");
    const { code, stderr } = await runToExit(nodeEnv(url, 'follower'));
    expect(code).to.equal(1);
    expect(stderr).to.match(/hash chain is broken at seq 1[78]/);
  });

  it('a follower that reads a broken link while following stops rather than serve it', async () => {
    const url = await writtenLog();
    const follower = await spawnNode(url, 'follower');
    try {
      const [head] = await sql<{ seq: string }>(url, 'select max(seq) as seq from events');
      const seq = Number(head?.seq);
      await reachSeq(follower.url, seq);
      // A row appended by someone who is not the leader: its hash does not chain.
      await sql(
        url,
        `insert into events (seq, type, time, hash, canonical)
         select seq + 1, type, time, repeat('b', 64), replace(canonical, '"seq":' || seq || ',', '"seq":' || (seq + 1) || ',') from events where seq = $1`,
        [seq],
      );
      const code = await follower.exited;
      expect(code).to.equal(1);
      expect(follower.stderr()).to.match(new RegExp(`hash chain is broken at seq ${seq + 1}`));
    } finally {
      await follower.kill('SIGKILL');
    }
  });
});
