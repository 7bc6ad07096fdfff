// The play's pace and its steering: a recording of some seconds at speed N takes about its length / N,
// at max as long as the engine takes; pause holds the simulated clock and the play, resume goes on from
// there; GET /api/v1/practice and the admin routes as the OpenAPI document says (an ordinary exchange
// answers 404 not_practice). And the practice exchange's log is an ordinary log: replay verify and
// audit pass on it, prefix, bot and replayed commands alike.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PracticeStatus } from '../../src/server/practice/practice-control.ts';
import { Client } from '../http/support/client.ts';
import { replay } from '../support/replay-cli.ts';
import { startTestServer } from '../support/server.ts';
import { Recorder, TMP, writeLog } from './support/recordings.ts';
import { practise } from './support/practice.ts';


/** A recording whose commands are `stepMs` apart: `n` orders resting on both sides of BTC-USD. */
function spaced(n: number, stepMs: number): string {
  const r = new Recorder(stepMs);
  const alice = r.trader('alice');
  r.market('BTC-USD');
  for (let i = 0; i < n; i++) r.order(alice, i % 2 === 0 ? 'BUY' : 'SELL', i % 2 === 0 ? 90 - i : 110 + i, 1);
  return writeLog(r.events);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('practice: speed, pause and resume, steering', function () {
  this.timeout(60_000);

  it('a recording of 2.4 s at speed 4 finishes in about 0.6 s; at max at once', async () => {
    const file = spaced(12, 200);
    const paced = await practise(file, { speed: 4 });
    const started = performance.now();
    await paced.finished;
    const took = performance.now() - started;
    await paced.close();
    // The span from the first to the last recorded command is 13 steps of 200 ms (the market, then 12 orders).
    expect(took).to.be.within((13 * 200) / 4 - 50, (13 * 200) / 4 + 1500);
    const max = await practise(file, { speed: 'max' });
    const again = performance.now();
    await max.finished;
    const fast = performance.now() - again;
    await max.close();
    expect(fast).to.be.below(took / 2);
  });

  it('pause holds the simulated clock and the play; resume and a new speed go on from there', async () => {
    const practice = await practise(spaced(40, 250), { speed: 1 });
    const admin = { token: `Bearer ${practice.ready.admin_token}` };
    const client = new Client(practice.ready.url);
    try {
      await sleep(400);
      const paused = await client.request<PracticeStatus>('POST', '/api/v1/practice/pause', admin);
      expect(paused.status).to.equal(200);
      expect(paused.body.state).to.equal('paused');
      await sleep(600);
      const held = await client.request<PracticeStatus>('GET', '/api/v1/practice');
      expect([held.body.state, held.body.simulated_time, held.body.commands_replayed]).to.deep.equal(['paused', paused.body.simulated_time, paused.body.commands_replayed]);
      const health = await client.request<{ now: string; practice: PracticeStatus }>('GET', '/health');
      expect([health.body.now, health.body.practice.simulated_time]).to.deep.equal([held.body.simulated_time, held.body.simulated_time]);
      // A command of the team's while held is stamped at the held simulated time.
      const order = await client.request<{ order: { created_at: string } }>('POST', '/api/v1/orders', { apiKey: practice.ready.api_key, body: { market: 'BTC-USD', side: 'BUY', price: 95, quantity: 1 } });
      expect(order.status).to.equal(201);
      expect(order.body.order.created_at >= held.body.simulated_time && order.body.order.created_at < practice.ready.recording.until).to.equal(true);
      const resumed = await client.request<PracticeStatus>('POST', '/api/v1/practice/resume', admin);
      expect(resumed.body.state).to.equal('running');
      await sleep(600);
      const moving = await client.request<PracticeStatus>('GET', '/api/v1/practice');
      expect(moving.body.simulated_time > held.body.simulated_time).to.equal(true);
      expect(moving.body.commands_replayed).to.be.greaterThan(held.body.commands_replayed);
      const faster = await client.request<PracticeStatus>('POST', '/api/v1/practice/speed', { ...admin, body: { speed: 'max' } });
      expect(faster.body.speed).to.equal('max');
      const report = await practice.finished;
      expect(report.faithful).to.equal(true);
      const done = await client.request<PracticeStatus>('GET', '/api/v1/practice');
      expect([done.body.state, done.body.commands_replayed, done.body.commands_total, done.body.report]).to.deep.equal(['finished', 42, 42, report]);
      expect(done.body.simulated_time).to.equal(practice.ready.recording.until);
      const late = await client.request('POST', '/api/v1/practice/pause', admin);
      expect([late.status, late.code]).to.deep.equal([409, 'practice_finished']);
    } finally {
      await practice.close();
    }
  });

  it('refuses bad steering: no token, a wrong one, a speed out of range', async () => {
    const practice = await practise(spaced(4, 100), { paused: true });
    const client = new Client(practice.ready.url);
    try {
      expect((await client.request('POST', '/api/v1/practice/resume')).code).to.equal('missing_admin_token');
      expect((await client.request('POST', '/api/v1/practice/resume', { token: 'Bearer wrong' })).code).to.equal('invalid_admin_token');
      for (const speed of [0, -1, 2_000_000, 'fast', null]) {
        const r = await client.request('POST', '/api/v1/practice/speed', { token: `Bearer ${practice.ready.admin_token}`, body: { speed } });
        expect([r.status, r.code], JSON.stringify(speed)).to.deep.equal([400, 'invalid_request']);
      }
      expect((await client.request<PracticeStatus>('GET', '/api/v1/practice')).body.state).to.equal('paused');
    } finally {
      await practice.close();
    }
  });

  it('an ordinary exchange has no practice: 404 not_practice, and /health says nothing of it', async () => {
    const server = await startTestServer();
    const client = new Client(server.url);
    try {
      for (const [method, path] of [['GET', '/api/v1/practice'], ['POST', '/api/v1/practice/pause'], ['POST', '/api/v1/practice/resume']] as const) {
        const r = await client.request(method, path, method === 'GET' ? {} : { admin: true });
        expect([r.status, r.code], path).to.deep.equal([404, 'not_practice']);
      }
      expect((await client.request<Record<string, unknown>>('GET', '/health')).body).to.not.have.property('practice');
    } finally {
      await server.close();
    }
  });

  it("the practice exchange's log (the recording's start, the team's orders, the replayed commands) passes replay verify and audit", async () => {
    const r = new Recorder();
    const alice = r.trader('alice');
    const bob = r.trader('bob');
    r.market('BTC-USD');
    const ask = r.order(alice, 'SELL', 101, 5);
    r.order(alice, 'SELL', 104, 5);
    const from = r.run({ type: 'PostAdminMessage', message_id: r.id(), target_username: 'bob', market: null, level: 'info', title: null, body: 'go' }).time;
    r.order(bob, 'BUY', 102, 3);
    r.run({ type: 'CancelOrder', trader_id: alice, order_id: ask });
    r.run({ type: 'FreezeLeaderboard', label: 'final', as_of_seq: r.exchange.seq, head_hash: '0'.repeat(64) });
    const practice = await practise(writeLog(r.events), { part: { from }, paused: true });
    const client = new Client(practice.ready.url);
    try {
      expect((await client.request('POST', '/api/v1/orders', { apiKey: practice.ready.api_key, body: { market: 'BTC-USD', side: 'BUY', price: 101, quantity: 2 } })).status).to.equal(201);
      await client.request('POST', '/api/v1/practice/resume', { token: `Bearer ${practice.ready.admin_token}` });
      const report = await practice.finished;
      // The team took 2 of alice's ask first, bob the 3 left: alice's recorded cancel of it finds nothing (the team is marked at the ask left, 104).
      expect([report.diverged, report.you.pnl]).to.deep.equal([1, 2 * (104 - 101)]);
      const log = await client.request<string>('GET', '/api/v1/admin/events', { token: `Bearer ${practice.ready.admin_token}` });
      const path = join(TMP, 'practice-log.ndjson');
      writeFileSync(path, log.body);
      for (const command of ['verify', 'audit']) {
        const { code, stdout, stderr } = await replay(command, '--file', path, '--quiet');
        expect(code, `${command}: ${stderr}`).to.equal(0);
        expect(stdout, command).to.match(/^ok: 1[0-9] events, seq gap-free/);
      }
      const prove = await replay('prove', '--file', path, '--label', 'final', '--quiet');
      expect(prove.stdout).to.match(/^proved: "final"/);
    } finally {
      await practice.close();
    }
  });
});
