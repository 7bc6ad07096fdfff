// npm run practice as a team runs it: a child process, its ready line, its report, its exit codes. The
// seat of a recorded trader, the played part (--from-time, --until-time), an anonymized export, a
// PostgreSQL source, and every bad input (exit 1, 2 or 3 with a message, nothing printed on stdout).
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PracticeReport } from '../../src/server/practice/practice-report.ts';
import { Client } from '../http/support/client.ts';
import { replay } from '../support/replay-cli.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { PracticeProcess, practiceRun } from './support/practice-cli.ts';
import { randomSession, eventsOf, Recorder, TMP, writeLog } from './support/recordings.ts';


interface Ready {
  practice: string;
  url: string;
  api_key: string;
  trader_id: string;
  username: string;
  admin_token: string;
  recording: { events: number; from: string; until: string };
}

/** alice rests an ask and a bid; the play (from `from`) has bob trading with her, and alice adding one more. */
function round(): { file: string; from: string; until: string; alice: string; bob: string; events: number } {
  const r = new Recorder(200);
  const alice = r.trader('alice');
  const bob = r.trader('bob');
  r.market('BTC-USD');
  r.order(alice, 'SELL', 105, 10);
  r.order(alice, 'BUY', 95, 10);
  const from = r.order(bob, 'BUY', 105, 4) && r.events.at(-1)?.time as string;
  r.order(alice, 'SELL', 106, 3);
  const until = r.run({ type: 'PostAdminMessage', message_id: r.id(), target_username: null, market: null, level: 'info', title: null, body: 'half time' }).time;
  r.order(bob, 'SELL', 95, 10);
  return { file: writeLog(r.events), from, until, alice, bob, events: r.exchange.seq };
}

describe('practice: the CLI', function () {
  this.timeout(60_000);
  const r = round();

  it('prints the ready line first, progress on stderr, then the report, and exits 0 with --exit-when-done', async () => {
    const out = await practiceRun(['--file', r.file, '--speed', 'max', '--bind', ':0', '--exit-when-done']);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.lines).to.have.length(2);
    const ready = JSON.parse(out.lines[0] as string) as Ready;
    expect(Object.keys(ready)).to.deep.equal(['practice', 'url', 'api_key', 'trader_id', 'username', 'admin_token', 'recording']);
    expect(ready.practice).to.equal('ready');
    expect(ready.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.api_key).to.match(/^exch_[0-9a-f]{32}$/);
    expect(ready.username).to.equal('practice');
    expect(ready.recording).to.deep.equal({ events: r.events, from: JSON.parse(readFileSync(r.file, 'utf8').split('\n')[0] as string).time, until: JSON.parse(readFileSync(r.file, 'utf8').trim().split('\n').at(-1) as string).time });
    const finished = JSON.parse(out.lines[1] as string) as { practice: string; report: PracticeReport };
    expect(finished.practice).to.equal('finished');
    expect(Object.keys(finished.report)).to.deep.equal(['faithful', 'diverged', 'you', 'standings']);
    expect(finished.report.faithful).to.equal(true);
    expect(finished.report.you).to.deep.equal({ trader_id: ready.trader_id, username: 'practice', pnl: 0, rank: 2 });
    expect(out.stderr).to.match(/practice: finished, 9 of 9 recorded commands/);
  });

  it('--seat takes a recorded trader\'s place: its state at --from-time, a new key, its recorded commands dropped; --until-time ends the play', async () => {
    const p = new PracticeProcess(['--file', r.file, '--seat', 'alice', '--from-time', r.from, '--until-time', r.until, '--bind', ':0', '--paused']);
    try {
      const ready = await p.line<Ready>(0);
      expect([ready.trader_id, ready.username, ready.recording.from, ready.recording.until]).to.deep.equal([r.alice, 'alice', r.from, r.until]);
      const client = new Client(ready.url);
      const open = await client.request<{ side: string; price: number; remaining: number }[]>('GET', '/api/v1/open-orders', { apiKey: ready.api_key });
      expect(open.status).to.equal(200);
      expect(open.body.map((o) => [o.side, o.price, o.remaining])).to.have.deep.members([['SELL', 105, 10], ['BUY', 95, 10]]);
      await client.request('POST', '/api/v1/practice/resume', { token: `Bearer ${ready.admin_token}` });
      const { report } = await p.line<{ report: PracticeReport }>(1);
      // Played: bob's buy (alice's ask fills 4), alice's own ask at 106 (dropped), the message; not bob's later sell.
      const status = await client.request<{ commands_total: number; commands_replayed: number }>('GET', '/api/v1/practice');
      expect([status.body.commands_total, status.body.commands_replayed]).to.deep.equal([2, 2]);
      const after = await client.request<{ side: string; price: number; remaining: number }[]>('GET', '/api/v1/open-orders', { apiKey: ready.api_key });
      expect(after.body.map((o) => [o.side, o.price, o.remaining])).to.have.deep.members([['SELL', 105, 6], ['BUY', 95, 10]]);
      const alice = report.standings.find((s) => s.trader_id === r.alice);
      // Recorded at --until-time: alice short 4 from 105, marked at the mid (95 + 105) / 2 = 100 (her 106 ask behind the 105): +20.
      expect([report.you.trader_id, alice?.recorded_pnl, alice?.practice_pnl]).to.deep.equal([r.alice, 20, 20]);
      expect(report.faithful).to.equal(true);
    } finally {
      await p.stop();
    }
  });

  it('--seat of a trader the played part provisions: the key works from its provisioning on', async () => {
    const p = new PracticeProcess(['--file', r.file, '--seat', 'bob', '--bind', ':0', '--speed', 'max']);
    try {
      const ready = await p.line<Ready>(0);
      await p.line(1);
      const me = await new Client(ready.url).request<{ trader_id: string; username: string }>('GET', '/api/v1/user', { apiKey: ready.api_key });
      expect([me.status, me.body.trader_id, me.body.username]).to.deep.equal([200, r.bob, 'bob']);
    } finally {
      expect(await p.stop()).to.equal(0);
    }
  });

  it('takes an anonymized export like any recording, a team\'s seat included', async () => {
    const sim = randomSession(8, 300);
    const anonymized = join(TMP, 'cli-anonymized.ndjson');
    expect((await replay('export', '--file', writeLog(eventsOf(sim.exchange)), '--anonymize', '--out', anonymized, '--quiet')).code).to.equal(0);
    const out = await practiceRun(['--file', anonymized, '--seat', 'team-002', '--speed', 'max', '--bind', ':0', '--exit-when-done']);
    expect(out.code, out.stderr).to.equal(0);
    const ready = JSON.parse(out.lines[0] as string) as Ready;
    const { report } = JSON.parse(out.lines[1] as string) as { report: PracticeReport };
    // (Not faithful: the seat's own recorded orders are dropped, and those who traded with them do otherwise.)
    expect([ready.username, report.you.username, report.you.trader_id]).to.deep.equal(['team-002', 'team-002', '7ea30000-0000-4000-8000-000000000002']);
    expect(report.standings.every((s) => /^team-\d{3}$/.test(s.username))).to.equal(true);
  });

  it('reads a PostgreSQL database holding an exchange\'s log', async function () {
    await requirePostgres(this);
    const database = await createDatabase('practice_source');
    try {
      const imported = await replay('import', '--file', r.file, '--database', database, '--quiet');
      expect(imported.stdout).to.match(/^ok: imported/);
      const out = await practiceRun(['--database', database, '--speed', 'max', '--bind', ':0', '--exit-when-done']);
      expect(out.code, out.stderr).to.equal(0);
      expect((JSON.parse(out.lines[0] as string) as Ready).recording.events).to.equal(r.events);
      expect((JSON.parse(out.lines[1] as string) as { report: PracticeReport }).report.faithful).to.equal(true);
      const anonymized = join(TMP, 'pg-anonymized.ndjson');
      expect((await replay('export', '--database', database, '--anonymize', '--out', anonymized, '--quiet')).code).to.equal(0);
      expect(readFileSync(anonymized, 'utf8')).to.include('"team-002"');
    } finally {
      await dropDatabase(database);
    }
  });

  describe('bad input: a message on stderr, nothing on stdout', () => {
    const cases: readonly (readonly [string, readonly string[], number, RegExp])[] = [
      ['no source', [], 2, /give exactly one source/],
      ['two sources', ['--file', 'x', '--database', 'postgres://x'], 2, /give exactly one source/],
      ['--trader and --seat', ['--file', 'x', '--trader', 'a', '--seat', 'b'], 2, /exclude each other/],
      ['a speed of 0', ['--file', 'x', '--speed', '0'], 2, /--speed must be/],
      ['a speed that is not one', ['--file', 'x', '--speed', 'fast'], 2, /--speed must be/],
      ['a time that is not one', ['--file', 'x', '--from-time', 'noon'], 2, /--from-time must be an RFC 3339 time/],
      ['--from-time after --until-time', ['--file', 'x', '--from-time', '2026-06-06T10:00:00Z', '--until-time', '2026-06-06T09:00:00Z'], 2, /must not be after/],
      ['an unknown option', ['--file', 'x', '--fast'], 2, /Unknown option '--fast'/],
      ['an empty trader name', ['--file', 'x', '--trader', '  '], 2, /--trader: username is required/],
      ['a bad address', ['--file', 'x', '--bind', 'nowhere'], 2, /BIND_ADDR="nowhere" is not host:port/],
      ['a missing file', ['--file', join(TMP, 'missing.ndjson')], 3, /cannot read .*missing\.ndjson: ENOENT/],
      ['an unreachable database', ['--database', 'postgres://postgres@127.0.0.1:1/nothing'], 3, /cannot reach PostgreSQL/],
    ];
    for (const [what, args, code, message] of cases) {
      it(`${what}: exit ${code}`, async () => {
        const out = await practiceRun([...args, '--bind', args.includes('--bind') ? (args[args.indexOf('--bind') + 1] as string) : ':0']);
        expect(out.code, out.stderr).to.equal(code);
        expect(out.stderr).to.match(message);
        expect(out.lines).to.deep.equal([]);
      });
    }

    it('a faulty recording: exit 1, naming the first bad seq', async () => {
      const lines = readFileSync(r.file, 'utf8').split('\n');
      const at = lines.findIndex((l) => l.includes('"quantity":4,'));
      lines[at] = (lines[at] as string).replace('"quantity":4,', '"quantity":40,');
      const bad = join(TMP, 'tampered.ndjson');
      writeFileSync(bad, lines.join('\n'));
      const out = await practiceRun(['--file', bad, '--bind', ':0', '--exit-when-done']);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.match(new RegExp(`log fault at seq ${at + 1}: hash does not match`));
      expect(out.lines).to.deep.equal([]);
    });

    it('a seat the recording does not have, or a --trader name it has: exit 2', async () => {
      const seat = await practiceRun(['--file', r.file, '--seat', 'carol', '--bind', ':0']);
      expect([seat.code, seat.lines]).to.deep.equal([2, []]);
      expect(seat.stderr).to.match(/--seat "carol": the recording has no trader of that name/);
      const taken = await practiceRun(['--file', r.file, '--trader', 'bob', '--bind', ':0']);
      expect([taken.code, taken.lines]).to.deep.equal([2, []]);
      expect(taken.stderr).to.match(/--trader "bob" is a trader of the recording/);
    });
  });
});
