// Failover under load: a leader, a standby and a follower over one log; orders with durable acks sent to
// whoever leads; the leader is killed with SIGKILL, the standby takes the writer lock and goes on, and
// the killed node comes back as the next standby. Several rounds in one run. Every acknowledged order
// is in the log and in the new leader's state, seqs continue without a gap, the chain stays valid, the
// follower's WebSocket subscriber sees every book sequence once, and a subscriber of the dead leader
// resumes on the follower from its last sequence.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { Exchange } from '../../src/commands/exchange.ts';
import { stateHash as hashOf } from '../../src/projections/state-hash.ts';
import { checkChain, storedLog, until } from '../postgres/support/harness.ts';
import { call, ROOT, type ServerProcess } from '../postgres/support/server-process.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { WsTestClient, type Frame } from '../ws/support/ws-test-client.ts';
import { ADMIN, health, reachSeq, spawnNode, stateHash } from './support/cluster.ts';
import { LeaderRouter } from './support/router.ts';

const MARKET = 'FAIL-USD';

/** The replay CLI (replay/cli.ts) as an auditor runs it: exit code and everything it printed. */
function replay(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['replay/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}
const wsOf = (url: string) => url.replace('http', 'ws') + '/ws';

/** Book sequences of one market as a subscriber saw them: the snapshot's, then every delta's. */
function sequences(frames: readonly Frame[]): number[] {
  return frames.filter((f) => f['market'] === MARKET && (f.type === 'snapshot' || f.type === 'delta')).map((f) => f['sequence'] as number);
}

function contiguous(seqs: readonly number[]): boolean {
  return seqs.every((s, i) => i === 0 || s === (seqs[i - 1] as number) + 1);
}

describe('cluster: failover under load (SIGKILL of the leader, standby takes over)', function () {
  this.timeout(180_000);
  let url: string;
  const live = new Set<ServerProcess>();

  before(async function () {
    await requirePostgres(this);
    url = await createDatabase('exchange_failover');
  });
  after(async () => {
    for (const n of live) await n.kill('SIGKILL');
    if (url !== undefined) await dropDatabase(url);
  });

  const start = async (role: string) => {
    const node = await spawnNode(url, role, { POSTGRES_DURABLE_ACKS: 'true', SNAPSHOT_EVERY_EVENTS: '700', STANDBY_LOCK_POLL_MS: '50' });
    live.add(node);
    return node;
  };

  it('no acknowledged order is lost, seqs continue, subscribers see no gap, over three failovers', async () => {
    let leader = await start('leader');
    // The leader created the log; the others start together.
    const [firstStandby, follower] = await Promise.all([start('standby'), start('follower')]);
    let standby = firstStandby;
    const load = await call(leader.url, 'POST', '/api/v1/admin/config/load', ADMIN, {
      trading_enabled: true,
      markets: [{ market_id: MARKET, base_asset: 'FAIL', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true }],
    });
    expect(load.status).to.equal(200);
    const keys: string[] = [];
    for (let i = 0; i < 6; i++) keys.push((await call<{ profile: { api_key: string } }>(leader.url, 'POST', '/api/v1/admin/users', ADMIN, { username: `fo_${i}` })).body.profile.api_key);

    // Subscribers: one on the follower for the whole run, one on the leader (it dies with the leader).
    const onFollower = await WsTestClient.open(wsOf(follower.url));
    onFollower.send({ op: 'subscribe', channel: 'l3', market: MARKET });
    await onFollower.nextType('snapshot');

    const router = new LeaderRouter([leader.url, standby.url]);
    const acked = new Map<string, string>(); // client_order_id -> order id
    let stop = false;
    let lastAckAt = 0;
    const worker = async (apiKey: string, w: number) => {
      for (let i = 0; !stop; i++) {
        const clientOrderId = `w${w}-${i}`;
        const body = { market: MARKET, side: (i + w) % 2 === 0 ? 'BUY' : 'SELL', price: 97 + ((i * 7 + w) % 7), quantity: 1 + (i % 2), client_order_id: clientOrderId };
        const answer = await router.send('POST', '/api/v1/orders', { 'x-api-key': apiKey }, body);
        if (answer === null) continue;
        if (answer.status === 201 || answer.status === 200) {
          acked.set(clientOrderId, (answer.body as { order: { id: string } }).order.id);
          lastAckAt = performance.now();
        } else if (answer.code !== 'position_limit_exceeded') {
          router.wrong.push(`order ${clientOrderId}: ${answer.status} ${answer.code}`);
        }
      }
    };
    const workers = keys.map((k, w) => worker(k, w));

    const failoverMs: number[] = [];
    for (let round = 0; round < 3; round++) {
      const floor = acked.size;
      await until('orders on the leader', () => acked.size > floor + 100, 20_000);
      const onLeader = await WsTestClient.open(wsOf(leader.url));
      onLeader.send({ op: 'subscribe', channel: 'l3', market: MARKET });
      const snap = await onLeader.nextType('snapshot');
      const epoch = snap['epoch'] as string;
      await new Promise((resolve) => setTimeout(resolve, 150));

      const killedAt = performance.now();
      await leader.kill('SIGKILL');
      live.delete(leader);
      const before = acked.size;
      await until('the standby to take over', async () => (await health(standby.url).catch(() => null))?.admitting === true, 10_000);
      // The killed node comes back as the next standby (started once there is a leader, used next round).
      const nextStandby = start('standby');
      await until('an order acknowledged by the new leader', () => acked.size > before && lastAckAt > killedAt, 10_000);
      failoverMs.push(Math.round(lastAckAt - killedAt));

      // The dead leader's subscriber resumes on the follower from its last sequence: no gap, no duplicate.
      const seen = sequences(onLeader.history);
      await onLeader.close();
      const last = seen[seen.length - 1] as number;
      const resumed = await WsTestClient.open(wsOf(follower.url));
      resumed.send({ op: 'subscribe', channel: 'l3', market: MARKET, last_sequence: last, epoch });
      const answer = await resumed.next((f) => f.type === 'subscribed' || f.type === 'snapshot' || f.type === 'error', 'the resume answer');
      expect(answer, JSON.stringify(answer)).to.deep.include({ type: 'subscribed', last_sequence: last });
      await until('deltas after the resume', () => sequences(resumed.history).length >= 5, 10_000);
      const after = sequences(resumed.history);
      expect(after[0]).to.equal(last + 1);
      expect(contiguous(after), `resumed sequences ${after.join(',')}`).to.equal(true);
      await resumed.close();

      const next = await nextStandby;
      leader = standby;
      standby = next;
      router.nodes.splice(0, router.nodes.length, leader.url, standby.url);
    }
    stop = true;
    await Promise.all(workers);
    console.log(`      failover (SIGKILL to the first order acked by the new leader): ${failoverMs.join(' ms, ')} ms; ${acked.size} orders acked`);
    expect(router.wrong, 'answers that were neither an ack, a refusal, not_leader nor a connection error').to.deep.equal([]);

    // The log: seqs 1..n without a gap, every link valid, every acknowledged order in it.
    const stored = await storedLog(url);
    checkChain(stored);
    const inLog = new Set(stored.flatMap((r) => (r.event.type === 'OrderSubmitted' ? [r.event.data.order.id] : [])));
    const missing = [...acked.values()].filter((id) => !inLog.has(id));
    expect(missing, 'acknowledged orders missing from the log').to.deep.equal([]);

    // The leader's state is the log's, and so is the follower's at the same seq.
    const head = stored.length;
    await reachSeq(leader.url, head);
    await reachSeq(follower.url, head);
    const fold = new Exchange();
    for (const r of stored) fold.fold(r.event);
    const chain = stored[stored.length - 1]?.hash ?? '';
    const expected = { seq: head, state_hash: hashOf(fold.state, chain), chain_hash: chain, hash_version: 3 };
    expect(await stateHash(leader.url)).to.deep.equal(expected);
    expect(await stateHash(follower.url)).to.deep.equal(expected);
    // The auditor's tool agrees: the log audits clean after the failovers, and its state hash is theirs.
    const audit = await replay(['audit', '--database', url]);
    expect(audit.code, audit.out).to.equal(0);
    const replayed = await replay(['state', '--database', url, '--until-seq', String(head), '--state-hash']);
    expect(replayed.code, replayed.out).to.equal(0);
    expect(replayed.out).to.include(expected.state_hash);

    // The follower's subscriber saw every sequence exactly once, across every failover.
    const probe = await WsTestClient.open(wsOf(leader.url));
    probe.send({ op: 'subscribe', channel: 'l3', market: MARKET });
    const current = (await probe.nextType('snapshot'))['sequence'] as number;
    await probe.close();
    await until('the follower\'s subscriber to see the last delta', () => sequences(onFollower.history).at(-1) === current);
    const seqs = sequences(onFollower.history);
    expect(contiguous(seqs), 'the follower subscriber\'s sequences have a gap or a duplicate').to.equal(true);
    await onFollower.close();
  });
});
