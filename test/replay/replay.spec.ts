import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, fixturePath, type Expected } from '../../replay/fixtures.ts';
import { replay } from '../support/replay-cli.ts';


function expected(name: string): Expected {
  return JSON.parse(readFileSync(fixturePath(name, 'expected.json'), 'utf8')) as Expected;
}

const tmp = mkdtempSync(join(tmpdir(), 'replay-test-'));

function tampered(name: string, change: (lines: string[]) => string[]): string {
  const lines = readFileSync(fixturePath(name, 'ndjson'), 'utf8').split('\n').filter((l) => l !== '');
  const path = join(tmp, `${name}-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(path, change(lines).join('\n') + '\n');
  return path;
}

describe('replay: recorded logs (golden)', function () {
  this.timeout(60_000);

  for (const name of Object.keys(FIXTURES)) {
    it(`${name}: the state hash (both definitions) and leaderboard are the recorded ones`, async () => {
      const want = expected(name);
      const hash = await replay('state', '--file', fixturePath(name, 'ndjson'), '--state-hash');
      expect(hash.code, hash.stderr).to.equal(0);
      expect(hash.stdout.trim()).to.equal(want.state_hash_v3);
      // The hash as the fixture was first recorded (the whole history), from the same replay.
      const legacy = await replay('state', '--file', fixturePath(name, 'ndjson'), '--state-hash', '--hash-version', '2');
      expect(legacy.code, legacy.stderr).to.equal(0);
      expect(legacy.stdout.trim()).to.equal(want.state_hash);
      const board = await replay('state', '--file', fixturePath(name, 'ndjson'), '--view', 'leaderboard');
      const parsed = JSON.parse(board.stdout) as { seq: number; leaderboard: unknown };
      expect(parsed.seq).to.equal(want.events);
      expect(parsed.leaderboard).to.deep.equal(want.leaderboard);
    });

    it(`${name}: verifies, and re-running matching reproduces every outcome`, async () => {
      const r = await replay('audit', '--file', fixturePath(name, 'ndjson'));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(new RegExp(`^ok: ${expected(name).events} events, seq gap-free, every chain hash verified, every outcome re-run and matched`));
    });
  }

  it('publishes the standings of the round before a reset (--until-seq)', async () => {
    const want = expected('reset-between-rounds').before_reset;
    expect(want, 'the fixture has a reset').to.not.equal(undefined);
    const r = await replay('state', '--file', fixturePath('reset-between-rounds', 'ndjson'), '--until-seq', String(want?.seq), '--view', 'leaderboard');
    const parsed = JSON.parse(r.stdout) as { seq: number; state_hash: string; leaderboard: unknown };
    expect(parsed.seq).to.equal(want?.seq);
    expect(parsed.state_hash).to.equal(want?.state_hash_v3);
    expect(parsed.leaderboard).to.deep.equal(want?.leaderboard);
  });

  it('stops at a time with --until-time, and prints CSV', async () => {
    const lines = readFileSync(fixturePath('round-with-settlement', 'ndjson'), 'utf8').split('\n');
    const tenth = JSON.parse(lines[9] as string) as { time: string };
    const r = await replay('state', '--file', fixturePath('round-with-settlement', 'ndjson'), '--until-time', tenth.time, '--view', 'markets');
    expect((JSON.parse(r.stdout) as { seq: number }).seq).to.equal(10);
    const csv = await replay('state', '--file', fixturePath('round-with-settlement', 'ndjson'), '--view', 'positions', '--format', 'csv');
    expect(csv.stdout.split('\n')[0]).to.equal('trader_id,username,market,net_quantity,average_entry_price,realized_pnl,fees,updated_at');
  });
});

describe('replay: tampered logs name the first bad seq', function () {
  this.timeout(60_000);
  const name = 'round-with-settlement';

  it('one flipped byte in an event', async () => {
    const path = tampered(name, (lines) => {
      const i = lines.findIndex((l, n) => n > 100 && l.includes('"quantity":'));
      lines[i] = (lines[i] as string).replace(/"quantity":(\d)/, (_m, d: string) => `"quantity":${(Number(d) + 1) % 10}`);
      return lines;
    });
    const lines = readFileSync(path, 'utf8').split('\n');
    const original = readFileSync(fixturePath(name, 'ndjson'), 'utf8').split('\n');
    const changed = lines.findIndex((l, i) => l !== original[i]);
    const r = await replay('verify', '--file', path);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include(`log fault at seq ${changed + 1}:`);
  });

  it('one deleted event', async () => {
    const r = await replay('verify', '--file', tampered(name, (lines) => lines.filter((_l, i) => i !== 250)));
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include('log fault at seq 251: missing: the next event is seq 252');
  });

  it('two events swapped', async () => {
    const r = await replay('verify', '--file', tampered(name, (lines) => {
      [lines[300], lines[301]] = [lines[301] as string, lines[300] as string];
      return lines;
    }));
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include('log fault at seq 301:');
  });

  it('a truncated last line', async () => {
    const r = await replay('verify', '--file', tampered(name, (lines) => {
      lines[lines.length - 1] = (lines[lines.length - 1] as string).slice(0, 40);
      return lines;
    }));
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include(`log fault at seq ${expected(name).events}:`);
  });

  it('an event that cannot apply (a cancel of an order that never rested), even with a re-computed chain', async () => {
    const path = tampered(name, (lines) => {
      const i = lines.findIndex((l, n) => n > 50 && l.includes('"type":"OrderCanceled"'));
      const e = JSON.parse(lines[i] as string) as { data: { order_id: string } };
      e.data.order_id = '00000000-0000-4000-8000-00000000dead';
      lines[i] = JSON.stringify(e);
      return lines.map((l) => {
        const { hash: _hash, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify(rest);
      });
    });
    const r = await replay('state', '--file', path, '--state-hash');
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/log fault at seq \d+: the event cannot be applied to the state before it: .*order 00000000-0000-4000-8000-00000000dead/);
  });

  it('an outcome that the engine would not produce (audit), even with a re-computed chain', async () => {
    // Alter a fill's price and drop the hashes: the chain is then recomputed, and only re-running catches it.
    const path = tampered(name, (lines) => {
      const i = lines.findIndex((l, n) => n > 50 && l.includes('"fills":[{'));
      const e = JSON.parse(lines[i] as string) as { data: { fills: { price: number }[] } };
      (e.data.fills[0] as { price: number }).price += 5;
      lines[i] = JSON.stringify(e);
      return lines.map((l) => {
        const { hash: _hash, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify(rest);
      });
    });
    const verify = await replay('verify', '--file', path);
    expect(verify.code).to.equal(0);
    expect(verify.stdout).to.include('no stored hashes in this log: chain computed');
    const audit = await replay('audit', '--file', path);
    expect(audit.code).to.equal(1);
    expect(audit.stderr).to.match(/log fault at seq \d+: re-running OrderSubmitted gives a different outcome: data\.fills/);
  });
});

describe('replay: clear exits for bad sources and usage', function () {
  this.timeout(30_000);

  it('a missing file exits 3', async () => {
    const r = await replay('verify', '--file', join(tmp, 'nope.ndjson'));
    expect(r.code).to.equal(3);
    expect(r.stderr).to.include('ENOENT');
  });

  it('an unreachable database exits 3', async () => {
    const r = await replay('verify', '--database', 'postgres://postgres@127.0.0.1:1/none');
    expect(r.code).to.equal(3);
    expect(r.stderr).to.include('cannot reach PostgreSQL');
  });

  it('bad usage exits 2 with the help; --help exits 0', async () => {
    const r = await replay('state', '--view', 'everything', '--file', 'x');
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('usage: npm run replay');
    expect((await replay('--help')).code).to.equal(0);
  });

  it('an option the command does not use is refused (exit 2), not ignored', async () => {
    const log = fixturePath('reset-between-rounds', 'ndjson');
    for (const [args, message] of [
      [['verify', '--file', log, '--view', 'fills'], '--view does not apply to verify (only to state)'],
      [['audit', '--file', log, '--state-hash'], '--state-hash does not apply to audit (only to state)'],
      [['export', '--pg', '--until-seq', '5'], '--until-seq does not apply to export (only to verify, audit, state)'],
      [['snapshots', '--pg', '--until-time', '2026-01-01T00:00:00Z'], '--until-time does not apply to snapshots'],
      [['prove', '--file', log, '--out', 'x.ndjson'], '--out does not apply to prove (only to export)'],
      [['state', '--file', log, '--label', 'final'], '--label does not apply to state (only to prove)'],
      [['verify', '--file', log, '--format', 'csv'], '--format does not apply to verify (only to state)'],
      [['prove', '--file', log, '--audit'], '--audit does not apply to prove (only to verify, audit, state)'],
      [['state', '--file', log, '--state-hash', '--view', 'fills'], '--state-hash prints only the hash: drop --view and --format'],
      [['verify', '--file', log, '--hash-version', '2'], '--hash-version does not apply to verify (only to state)'],
      [['state', '--file', log, '--hash-version', '2'], '--hash-version goes with --state-hash'],
      [['state', '--file', log, '--state-hash', '--hash-version', '1'], '--hash-version must be 2 or 3'],
    ] as const) {
      const r = await replay(...args);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.stderr, args.join(' ')).to.include(message);
    }
    // Where they apply, as before: a prefix verified, and --quiet taken by any command.
    const prefix = await replay('verify', '--file', log, '--until-seq', '10', '--quiet');
    expect(prefix.code, prefix.stderr).to.equal(0);
    expect(prefix.stdout).to.match(/^ok: 10 events/);
    const audited = await replay('audit', '--file', log, '--audit', '--until-seq', '10');
    expect(audited.code, audited.stderr).to.equal(0);
    expect(audited.stdout).to.match(/^ok: 10 events, .*every outcome re-run and matched/);
  });
});
