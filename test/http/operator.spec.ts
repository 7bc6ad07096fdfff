// Running a competition (docs/api.md) through the real service: bulk provisioning, key rotation, disabling,
// the schedule, the official leaderboard and CSV exports.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { stateHash } from '../../src/projections/state-hash.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';
import { until } from '../support/until.ts';
import { Client, expectError, UUID, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

const run = promisify(execFile);
const CLI = new URL('../../replay/cli.ts', import.meta.url).pathname;

interface Profiles {
  profiles: Trader[];
}

function future(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}


describe('HTTP operator commands (running a competition)', function () {
  this.timeout(60_000);
  let server: HttpTestServer;
  let c: Client;
  const hash = (): string => stateHash(server.context.service.state);

  beforeEach(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
  });
  afterEach(() => server.close());

  describe('POST /api/v1/admin/users/bulk', () => {
    it('provisions 5,000 teams in one call and one event; every key works once shown', async () => {
      const names = Array.from({ length: 5000 }, (_, i) => `team-${String(i).padStart(4, '0')}`);
      const seq = server.context.service.state.seq;
      const r = await c.admin<Profiles>('POST', '/api/v1/admin/users/bulk', names);
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).to.equal(201);
      expect(r.body.profiles).to.have.length(5000);
      expect(r.body.profiles.map((p) => p.username)).to.deep.equal(names);
      for (const p of r.body.profiles) {
        expect(p.trader_id).to.match(UUID);
        expect(p.api_key).to.match(/^exch_[0-9a-f]{32}$/);
      }
      expect(new Set(r.body.profiles.map((p) => p.api_key)).size).to.equal(5000);
      expect(server.context.service.state.seq).to.equal(seq + 1);
      const last = r.body.profiles[4999] as Trader;
      const user = await c.trader(last.api_key, 'GET', '/api/v1/user');
      expect(user.status).to.equal(200);
      expect(user.body).to.deep.equal(last);
      // The key is never in the log: only its hash.
      const events = await c.request('GET', '/api/v1/admin/events', { admin: true });
      expect(String(events.body)).to.not.include(last.api_key);
    });

    it('takes {"usernames": [...]} and a CSV upload (username column, others ignored); answers as CSV on Accept: text/csv', async () => {
      const a = await c.admin<Profiles>('POST', '/api/v1/admin/users/bulk', { usernames: ['ann', 'ben'] });
      expect(a.status).to.equal(201);
      expect(a.body.profiles.map((p) => p.username)).to.deep.equal(['ann', 'ben']);
      const csv = 'team,username,email\n1,"cat, the",c@x\n2,dan,d@x\n';
      const r = await c.request('POST', '/api/v1/admin/users/bulk', { admin: true, raw: csv, headers: { 'content-type': 'text/csv', accept: 'text/csv' } });
      expect(r.status, String(r.body)).to.equal(201);
      expect(r.headers.get('content-type')).to.match(/^text\/csv/);
      const rows = parse(String(r.body), { columns: true }) as Record<string, string>[];
      expect(rows.map((x) => x['username'])).to.deep.equal(['cat, the', 'dan']);
      expect(Object.keys(rows[0] as object)).to.deep.equal(['username', 'trader_id', 'api_key', 'created_at']);
      const user = await c.trader((rows[1] as Record<string, string>)['api_key'] as string, 'GET', '/api/v1/user');
      expect((user.body as Trader).username).to.equal('dan');
    });

    it('refuses the whole request, naming every bad row, and changes nothing: duplicates, invalid names, 10,001 rows, malformed CSV', async () => {
      await c.provision('taken');
      const before = hash();
      expectError(
        await c.admin('POST', '/api/v1/admin/users/bulk', ['x1', 'taken', 'x2', 'x1']),
        409,
        'username_taken',
        '2 bad rows, nothing provisioned: row 2 ("taken"): username already exists; row 4 ("x1"): duplicate of row 1',
      );
      expectError(await c.admin('POST', '/api/v1/admin/users/bulk', ['ok', '  ', 'y'.repeat(65), 'ok']), 400, 'invalid_username', /^3 bad rows, nothing provisioned: row 2 .*row 3 .*row 4 \("ok"\): duplicate of row 1$/);
      const many = Array.from({ length: 10_001 }, (_, i) => `n${i}`);
      expectError(await c.admin('POST', '/api/v1/admin/users/bulk', many), 400, 'too_many_rows', 'at most 10000 usernames per request, got 10001');
      const csvMany = 'username\n' + many.join('\n') + '\n';
      expectError(await c.request('POST', '/api/v1/admin/users/bulk', { admin: true, raw: csvMany, headers: { 'content-type': 'text/csv' } }), 400, 'too_many_rows', 'at most 10000 usernames per request, got 10001');
      expectError(await c.request('POST', '/api/v1/admin/users/bulk', { admin: true, raw: 'username\n"unclosed\nx\n', headers: { 'content-type': 'text/csv' } }), 400, 'invalid_csv', /^malformed CSV: /);
      expectError(await c.request('POST', '/api/v1/admin/users/bulk', { admin: true, raw: 'name\nx\n', headers: { 'content-type': 'text/csv' } }), 400, 'invalid_csv', /no username column/);
      expectError(await c.request('POST', '/api/v1/admin/users/bulk', { admin: true, raw: 'username,team\na,1,extra\n', headers: { 'content-type': 'text/csv' } }), 400, 'invalid_csv');
      expectError(await c.admin('POST', '/api/v1/admin/users/bulk', []), 400, 'invalid_request', 'no usernames given');
      expectError(await c.admin('POST', '/api/v1/admin/users/bulk', { usernames: 'ann' }), 400, 'invalid_request');
      expectError(await c.admin('POST', '/api/v1/admin/users/bulk', [1, 2]), 400, 'invalid_request');
      expect(hash()).to.equal(before);
    });

    it('takes 10,000 names of 64 characters (a body far above 64 KiB) on this route only', async () => {
      const names = Array.from({ length: 10_000 }, (_, i) => `${String(i).padStart(5, '0')}${'n'.repeat(59)}`);
      const r = await c.admin<Profiles>('POST', '/api/v1/admin/users/bulk', names);
      expect(r.status).to.equal(201);
      expect(r.body.profiles).to.have.length(10_000);
      expectError(await c.request('POST', '/api/v1/admin/users', { admin: true, raw: JSON.stringify({ username: 'x', pad: 'p'.repeat(70_000) }) }), 413, 'body_too_large');
    });
  });

  describe('key rotation and disabling', () => {
    it('a rotated key is refused at once over REST and WS, and a WS session on it is closed with 4001 "api key rotated"', async () => {
      const t = await c.provision('rot');
      expect((await c.trader(t.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
      const ws = await WsTestClient.open(server.url.replace('http', 'ws') + '/ws');
      ws.send({ op: 'authenticate', api_key: t.api_key });
      await ws.nextType('authenticated');
      const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
      const r = await c.admin<{ profile: Trader }>('POST', `/api/v1/admin/users/${t.trader_id}/rotate-key`);
      expect(r.status).to.equal(200);
      expect(r.body.profile.trader_id).to.equal(t.trader_id);
      expect(r.body.profile.api_key).to.match(/^exch_[0-9a-f]{32}$/).and.not.equal(t.api_key);
      expectError(await c.trader(t.api_key, 'GET', '/api/v1/user'), 401, 'invalid_api_key');
      expect((await c.trader(r.body.profile.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
      expect(await closed).to.deep.equal({ code: 4001, reason: 'api key rotated' });
      const ws2 = await WsTestClient.open(server.url.replace('http', 'ws') + '/ws');
      try {
        ws2.send({ op: 'authenticate', api_key: t.api_key });
        expect(await ws2.nextType('error')).to.include({ code: 'invalid_api_key' });
        ws2.send({ op: 'authenticate', api_key: r.body.profile.api_key });
        await ws2.nextType('authenticated');
      } finally {
        await ws2.close();
      }
      const before = hash();
      expectError(await c.admin('POST', '/api/v1/admin/users/00000000-0000-4000-8000-000000000000/rotate-key'), 404, 'trader_not_found');
      expect(hash()).to.equal(before);
    });

    it('disable cancels the open orders in one event, refuses the key (401 unauthenticated, REST and WS), closes its sessions, keeps it on the leaderboard marked; enable restores', async () => {
      const t = await c.provision('dis');
      const other = await c.provision('other');
      await c.market({ market_id: 'BTC-USD' });
      await c.order(t.api_key, 'BTC-USD', 'BUY', 90, 2);
      await c.order(t.api_key, 'BTC-USD', 'SELL', 110, 3);
      await c.order(other.api_key, 'BTC-USD', 'SELL', 120, 1);
      const ws = await WsTestClient.open(server.url.replace('http', 'ws') + '/ws');
      ws.send({ op: 'authenticate', api_key: t.api_key, cancel_on_disconnect: true });
      await ws.nextType('authenticated');
      const canceledBeforeClose = (): number => ws.history.filter((f) => f.type === 'order_state' && f['status'] === 'canceled').length;
      const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
      const seq = server.context.service.state.seq;
      const r = await c.admin<{ trader: { disabled: boolean }; canceled_orders: { order_id: string; remaining: number }[] }>('POST', `/api/v1/admin/users/${t.trader_id}/disable`);
      expect(r.status).to.equal(200);
      expect(r.body.trader).to.deep.include({ trader_id: t.trader_id, disabled: true });
      expect(r.body.canceled_orders.map((o) => o.remaining)).to.deep.equal([2, 3]);
      expect(await closed).to.deep.equal({ code: 4001, reason: 'trader disabled' });
      // Its own order_state frames of the cancels came before the close.
      expect(canceledBeforeClose()).to.equal(2);
      // One event: the cancel-on-disconnect of the closed session adds none.
      await new Promise((res) => setTimeout(res, 100));
      expect(server.context.service.state.seq).to.equal(seq + 1);
      expect(server.context.service.state.books.openOrders(t.trader_id)).to.deep.equal([]);
      expect(server.context.service.state.books.openOrders(other.trader_id)).to.have.length(1);
      expectError(await c.trader(t.api_key, 'GET', '/api/v1/user'), 401, 'unauthenticated', 'trader is disabled');
      expectError(await c.order(t.api_key, 'BTC-USD', 'BUY', 90, 1), 401, 'unauthenticated');
      const ws2 = await WsTestClient.open(server.url.replace('http', 'ws') + '/ws');
      ws2.send({ op: 'authenticate', api_key: t.api_key });
      expect(await ws2.nextType('error')).to.include({ code: 'unauthenticated' });
      const board = await c.admin<{ username: string; disabled?: boolean }[]>('GET', '/api/v1/admin/leaderboard');
      expect(board.body.find((row) => row.username === 'dis')).to.include({ disabled: true });
      expect(board.body.find((row) => row.username === 'other')).to.not.have.property('disabled');
      const accounts = await c.admin<{ username: string; disabled: boolean }[]>('GET', '/api/v1/admin/users');
      expect(accounts.body.map((a) => [a.username, a.disabled])).to.deep.equal([['dis', true], ['other', false]]);
      let before = hash();
      expectError(await c.admin('POST', `/api/v1/admin/users/${t.trader_id}/disable`), 409, 'trader_disabled');
      expectError(await c.admin('POST', '/api/v1/admin/users/nobody/disable'), 404, 'trader_not_found');
      expect(hash()).to.equal(before);
      expect((await c.admin('POST', `/api/v1/admin/users/${t.trader_id}/enable`)).status).to.equal(200);
      expect((await c.trader(t.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
      ws2.send({ op: 'authenticate', api_key: t.api_key });
      await ws2.nextType('authenticated');
      await ws2.close();
      before = hash();
      expectError(await c.admin('POST', `/api/v1/admin/users/${t.trader_id}/enable`), 409, 'trader_not_disabled');
      expect(hash()).to.equal(before);
    });
  });

  describe('the schedule', () => {
    it('runs each entry once when its time comes, as the ordinary command naming the entry; GET shows pending and done with seqs', async () => {
      await c.market({ market_id: 'ETH-USD' });
      await c.admin('POST', '/api/v1/admin/trading/stop');
      const put = await c.admin<{ pending: { entry_id: string; action: string }[] }>('PUT', '/api/v1/admin/schedule', {
        entries: [
          { at: future(600), action: 'start_trading' },
          { at: future(600), action: 'post_message', level: 'info', body: 'trading is open' },
          { at: future(700), action: 'disable_market', market_id: 'ETH-USD' },
          { at: future(800), action: 'settle_market', market_id: 'NOPE-USD', settlement_price: 5 },
          { at: future(3_600_000), action: 'stop_trading' },
        ],
      });
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
      expect(put.body.pending.map((e) => e.action)).to.deep.equal(['start_trading', 'post_message', 'disable_market', 'settle_market', 'stop_trading']);
      type Entry = { entry_id: string; action: string; status: string; seq: number | null; error: string | null };
      let schedule: { pending: Entry[]; done: Entry[] } = { pending: [], done: [] };
      await until('three entries done', async () => {
        schedule = (await c.admin<typeof schedule>('GET', '/api/v1/admin/schedule')).body;
        return schedule.done.length === 4;
      });
      expect(schedule.pending.map((e) => e.action)).to.deep.equal(['stop_trading']);
      expect(schedule.done.map((e) => [e.action, e.status])).to.deep.equal([['start_trading', 'ran'], ['post_message', 'ran'], ['disable_market', 'ran'], ['settle_market', 'failed']]);
      expect(schedule.done[3]?.error).to.match(/^market_not_configured: /);
      const lines = String((await c.request('GET', '/api/v1/admin/events', { admin: true })).body).trim().split('\n').map((l) => JSON.parse(l) as { seq: number; type: string; data: Record<string, unknown> });
      for (const e of schedule.done) {
        const ev = lines.find((l) => l.seq === e.seq);
        expect(ev?.data['schedule_entry'], JSON.stringify(ev)).to.equal(e.entry_id);
      }
      expect(lines.filter((l) => l.data['schedule_entry'] !== undefined).map((l) => l.type)).to.deep.equal(['TradingStarted', 'AdminMessagePosted', 'MarketPatched', 'ScheduledActionFailed']);
      const state = server.context.service.state;
      expect(state.markets.controls.trading_enabled).to.equal(true);
      expect(state.markets.get('ETH-USD')?.status).to.equal('disabled');
    });

    it('refuses a time in the past, an unknown action or a bad value with 400 and changes nothing', async () => {
      const before = hash();
      expectError(await c.admin('PUT', '/api/v1/admin/schedule', { entries: [{ at: '2020-01-01T00:00:00Z', action: 'start_trading' }] }), 400, 'invalid_schedule', /entry 1: at 2020-01-01T00:00:00.000000Z is not in the future/);
      expectError(await c.admin('PUT', '/api/v1/admin/schedule', { entries: [{ at: future(60_000), action: 'launch_rockets' }] }), 400, 'invalid_request');
      expectError(await c.admin('PUT', '/api/v1/admin/schedule', { entries: [{ at: 'tomorrow', action: 'start_trading' }] }), 400, 'invalid_request');
      expectError(await c.admin('PUT', '/api/v1/admin/schedule', { entries: [{ at: future(60_000), action: 'settle_market', market_id: 'BTC-USD', settlement_price: -1 }] }), 400, 'invalid_schedule');
      expect(hash()).to.equal(before);
      expect((await c.admin('GET', '/api/v1/admin/schedule')).body).to.deep.equal({ pending: [], done: [] });
    });
  });

  describe('the official leaderboard', () => {
    it('freezes standings with the head hash, lists them publicly, refuses a label twice; CSV of every leaderboard', async () => {
      const a = await c.provision('alice');
      const b = await c.provision('bob');
      await c.market({ market_id: 'BTC-USD' });
      await c.order(a.api_key, 'BTC-USD', 'SELL', 100, 5);
      await c.order(b.api_key, 'BTC-USD', 'BUY', 100, 2);
      const f = await c.admin<{ label: string; as_of_seq: number; head_hash: string; rows: { username: string }[] }>('POST', '/api/v1/admin/leaderboard/freeze', { label: 'round 1' });
      expect(f.status).to.equal(201);
      expect(f.body.label).to.equal('round 1');
      expect(f.body.as_of_seq).to.equal(server.context.service.state.seq - 1);
      expect(f.body.head_hash).to.match(/^[0-9a-f]{64}$/);
      expect(f.body.rows.map((r) => r.username)).to.have.members(['alice', 'bob']);
      const before = hash();
      expectError(await c.admin('POST', '/api/v1/admin/leaderboard/freeze', { label: 'round 1' }), 409, 'label_taken');
      expectError(await c.admin('POST', '/api/v1/admin/leaderboard/freeze', { label: '   ' }), 400, 'invalid_label');
      expect(hash()).to.equal(before);
      const official = await c.request<unknown[]>('GET', '/api/v1/leaderboard/official');
      expect(official.status).to.equal(200);
      expect(official.body).to.have.length(1);
      expect(official.body[0]).to.deep.include({ label: 'round 1', head_hash: f.body.head_hash });
      expectError(await c.request('GET', '/api/v1/leaderboard/official?label=round%202'), 404, 'official_not_found');
      const unlabelled = await c.admin<{ label: string }>('POST', '/api/v1/admin/leaderboard/freeze');
      expect(unlabelled.status).to.equal(201);
      expect(unlabelled.body.label).to.match(/^seq \d+$/);

      const csv = await c.request('GET', '/api/v1/leaderboard/official?format=csv');
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      const rows = parse(String(csv.body), { columns: true }) as Record<string, string>[];
      expect(rows).to.have.length(4);
      expect(Object.keys(rows[0] as object)).to.deep.equal(['label', 'as_of_seq', 'head_hash', 'rank', 'trader_id', 'username', 'net_pnl', 'realized_pnl', 'unrealized_pnl', 'gross_exposure', 'disabled']);
      for (const [path, opts] of [
        ['/api/v1/admin/leaderboard?format=csv', { admin: true }],
        ['/api/v1/admin/leaderboard', { admin: true, headers: { accept: 'text/csv' } }],
        ['/api/v1/leaderboard?format=csv', { apiKey: a.api_key }],
        ['/api/v1/leaderboard', { apiKey: a.api_key, headers: { accept: 'text/csv' } }],
      ] as const) {
        const r = await c.request('GET', path, opts);
        expect(r.status, path).to.equal(200);
        expect(r.headers.get('content-type'), path).to.match(/^text\/csv/);
        const parsed = parse(String(r.body), { columns: true }) as Record<string, string>[];
        expect(parsed.map((x) => x['username']).sort(), path).to.deep.equal(['alice', 'bob']);
      }
      const json = await c.request('GET', '/api/v1/admin/leaderboard', { admin: true });
      expect(json.headers.get('content-type')).to.match(/^application\/json/);

      // The in-memory server's head hash is the chain replay computes from its export: proved.
      const dir = await mkdtemp(join(tmpdir(), 'exchange-prove-'));
      try {
        const file = join(dir, 'log.ndjson');
        await writeFile(file, String((await c.request('GET', '/api/v1/admin/events', { admin: true })).body));
        const { stdout } = await run(process.execPath, [CLI, 'prove', '--file', file, '--label', 'round 1']);
        expect(stdout).to.match(/^proved: "round 1"/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
