// Split brain: the leader's database connection is cut (through a TCP proxy) while it takes orders.
// PostgreSQL ends its session and releases the writer lock, so the standby takes over; the old leader
// must have stopped admitting by then (it cannot know it still holds the lock), answer not_leader from
// then on, and, once the database is reachable again and the lock is someone else's, end itself.
import { expect } from 'chai';
import { checkChain, storedLog, until } from '../postgres/support/harness.ts';
import { call, type ServerProcess } from '../postgres/support/server-process.ts';
import { TcpProxy } from '../postgres/support/tcp-proxy.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { ADMIN, health, spawnNode } from './support/cluster.ts';

/** The pino log lines of a child process, as they arrive. */
function logLines(node: ServerProcess): { msg?: string; time?: string }[] {
  const lines: { msg?: string; time?: string }[] = [];
  let rest = '';
  node.child.stdout?.on('data', (d: Buffer) => {
    const text = rest + d.toString();
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as { msg?: string; time?: string });
      } catch {
        // not a log line
      }
    }
  });
  return lines;
}

describe('cluster: split brain', function () {
  this.timeout(90_000);
  let url: string;
  const nodes: ServerProcess[] = [];

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_split');
  });
  after(async () => {
    for (const n of nodes) await n.kill('SIGKILL');
    if (url !== undefined) await dropDatabase(url);
  });

  it('a leader whose database connection is cut stops admitting before the standby takes over, and ends once the lock is another\'s', async () => {
    const proxy = new TcpProxy(url);
    await proxy.start();
    try {
      // Write-behind acks: a leader that went on admitting would go on acknowledging.
      const leader = await spawnNode(proxy.via(url), 'leader', { POSTGRES_DURABLE_ACKS: 'false' });
      nodes.push(leader);
      const leaderLog = logLines(leader);
      const standby = await spawnNode(url, 'standby', { STANDBY_LOCK_POLL_MS: '20' });
      nodes.push(standby);
      const standbyLog = logLines(standby);
      await call(leader.url, 'POST', '/api/v1/admin/config/load', ADMIN, {
        trading_enabled: true,
        markets: [{ market_id: 'SPLIT-USD', base_asset: 'SPLIT', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true }],
      });
      const apiKey = (await call<{ profile: { api_key: string } }>(leader.url, 'POST', '/api/v1/admin/users', ADMIN, { username: 'split' })).body.profile.api_key;

      let stop = false;
      // `admitted`: the accepted order's created_at, the leader's own clock at admission (same machine).
      const answers: { status: number; code: string | null; at: number; admitted: string | null }[] = [];
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const res = await fetch(`${leader.url}/api/v1/orders`, {
              method: 'POST',
              headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
              body: JSON.stringify({ market: 'SPLIT-USD', side: i % 2 === 0 ? 'BUY' : 'SELL', price: 90 + (i % 3) * 10, quantity: 1 }),
            });
            const body = await res.text();
            const admitted = res.status === 201 ? ((JSON.parse(body) as { order?: { created_at?: string } }).order?.created_at ?? null) : null;
            answers.push({ status: res.status, code: res.headers.get('x-error-code'), at: performance.now(), admitted });
          } catch {
            return;
          }
          if (w < 0) return;
        }
      };
      const workers = [0, 1, 2, 3].map(worker);
      await until('orders admitted', () => answers.filter((a) => a.status === 201).length > 100);
      // The trader must be in the database before the cut: with write-behind acks a fast leader can
      // acknowledge a hundred orders before its first batch (which provisions the trader) commits, and
      // the new leader would then rightly refuse the key (401) below.
      await until('the trader committed', async () => (await storedLog(url)).some((r) => r.event.type === 'TraderProvisioned'));

      proxy.cut();
      const cutAt = performance.now();
      await until('the standby to take over', async () => (await health(standby.url)).admitting === true, 10_000);
      const promotedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop = true;
      await Promise.all(workers);

      // The old leader says it is fenced, and refuses with not_leader.
      const h = await health(leader.url);
      expect(h).to.deep.include({ role: 'leader', admitting: false });
      expect(h.replication?.fenced).to.match(/database session/);
      // Its logs: it stopped admitting before the standby was promoted.
      const fenced = leaderLog.find((l) => l.msg?.startsWith('leader: lost the database session') === true);
      const promoted = standbyLog.find((l) => l.msg?.startsWith('standby: promoted') === true);
      expect(fenced, 'the leader logs that it stopped admitting').to.not.equal(undefined);
      expect(promoted, 'the standby logs its promotion').to.not.equal(undefined);
      const promotedTime = Date.parse(promoted?.time as string);
      expect(Date.parse(fenced?.time as string)).to.be.at.most(promotedTime);
      // Every answer this test read after it saw the standby admitting is not_leader, or an order the old
      // leader admitted before the promotion (by its own admission time: on a loaded machine the answer
      // to an order admitted just before the fence can be read here after the standby's health was).
      const after = answers.filter((a) => a.at > promotedAt);
      expect(after.length).to.be.greaterThan(0);
      expect(after.some((a) => a.status === 503 && a.code === 'not_leader')).to.equal(true);
      const late = after.filter((a) => !(a.status === 503 && a.code === 'not_leader') && !(a.status === 201 && a.admitted !== null && Date.parse(a.admitted) <= promotedTime));
      expect(late, `answers after the promotion at ${promoted?.time}`).to.deep.equal([]);
      const acceptedAfterCut = answers.filter((a) => a.at > cutAt && a.status === 201).length;

      // The new leader writes on from the last committed event; what the old one had not written
      // (write-behind) is what is lost, and it is measured.
      const oldSeq = h.replication?.seq as number;
      const order = await call(standby.url, 'POST', '/api/v1/orders', { apiKey }, { market: 'SPLIT-USD', side: 'BUY', price: 50, quantity: 1 });
      expect(order.status).to.equal(201);
      const stored = await storedLog(url);
      checkChain(stored);
      const committedByOld = stored.length - 1;
      expect(committedByOld).to.be.at.most(oldSeq);
      console.log(`      split brain: ${acceptedAfterCut} orders acknowledged between the cut and the fence; old leader at seq ${oldSeq}, ${committedByOld} committed: ${oldSeq - committedByOld} write-behind events lost`);

      // The database comes back: the lock is the standby's, so the old leader ends itself.
      proxy.restore();
      const code = await leader.exited;
      expect(code).to.equal(1);
      expect(leader.stderr()).to.match(/another node holds the writer lock/);
    } finally {
      await proxy.close();
    }
  });
});
