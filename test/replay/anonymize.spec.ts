// replay export --anonymize: a log a team may have. Traders renamed team-001… in order of creation (ids
// too), no key material, client order ids hashed, operator texts kept; its own chain, so it verifies,
// audits and proves; and the practice tool takes it (test/practice/cli.spec.ts).
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Exchange } from '../../src/commands/exchange.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { keyIdOf } from '../../src/projections/api-keys.ts';
import { eventsOf, randomSession, TMP, writeLog } from '../practice/support/recordings.ts';
import { replay } from '../support/replay-cli.ts';


function fold(events: readonly ExchangeEvent[]): Exchange {
  const exchange = new Exchange();
  for (const e of events) exchange.fold(e);
  return exchange;
}

describe('replay export --anonymize', function () {
  this.timeout(60_000);
  // A random session, then what it lacks: bulk provisioning, a targeted message, a schedule naming a
  // team it provisions later (refused when due, in words that name it), and a freeze.
  const sim = randomSession(37, 250);
  const time = sim.exchange.state.time;
  const t = (n: number): string => `${time.slice(0, 20)}${String(Number(time.slice(20, 26)) + n).padStart(6, '0')}Z`;
  sim.exchange.execute({ type: 'ProvisionTraders', time: t(1), traders: [{ trader_id: '11111111-0000-4000-8000-000000000001', username: 'Zed Bulk', api_key_hash: 'f'.repeat(64) }] });
  sim.exchange.execute({ type: 'PostAdminMessage', time: t(2), message_id: '22222222-0000-4000-8000-000000000001', target_username: 'trader3', market: null, level: 'info', title: 'For trader3', body: 'keep quoting, trader3' });
  sim.exchange.execute({ type: 'SetSchedule', time: t(3), entries: [{ entry_id: '33333333-0000-4000-8000-000000000001', at: t(5), action: { action: 'post_message', level: 'info', body: 'hello', title: null, market: null, target_username: 'late-team' } }] });
  sim.exchange.execute({ type: 'RunScheduledAction', time: t(6), entry_id: '33333333-0000-4000-8000-000000000001', message_id: '22222222-0000-4000-8000-000000000002' });
  sim.exchange.execute({ type: 'ProvisionTrader', time: t(7), username: 'late-team', trader_id: '11111111-0000-4000-8000-000000000002', api_key_hash: 'e'.repeat(64) });
  sim.exchange.execute({ type: 'FreezeLeaderboard', time: t(8), label: 'final', as_of_seq: sim.exchange.seq, head_hash: '0'.repeat(64) });
  const original = eventsOf(sim.exchange);
  const source = writeLog(original);
  const out = join(TMP, 'anonymized.ndjson');
  let text = '';

  before(async () => {
    const r = await replay('export', '--file', source, '--anonymize', '--out', out, '--quiet');
    expect(r.code, r.stderr).to.equal(0);
    text = readFileSync(out, 'utf8');
  });

  it('verifies, audits and proves as a log of its own', async () => {
    const audit = await replay('audit', '--file', out, '--quiet');
    expect(audit.code, audit.stderr).to.equal(0);
    expect(audit.stdout).to.match(new RegExp(`^ok: ${original.length} events, seq gap-free, every chain hash verified, every outcome re-run and matched`));
    const prove = await replay('prove', '--file', out, '--label', 'final', '--quiet');
    expect(prove.code, prove.stderr).to.equal(0);
  });

  it('renames every trader team-001, team-002, … in order of creation, everywhere, and keeps no key material', () => {
    const events = text.trim().split('\n').map((l) => JSON.parse(l) as ExchangeEvent & { hash: string });
    const created = events.flatMap((e) => (e.type === 'TraderProvisioned' ? [e.data] : e.type === 'TradersProvisioned' ? e.data.traders : []));
    expect(created.map((c) => c.username)).to.deep.equal(created.map((_, i) => `team-${String(i + 1).padStart(3, '0')}`));
    const before = original.flatMap((e) => (e.type === 'TraderProvisioned' ? [e.data] : e.type === 'TradersProvisioned' ? e.data.traders : []));
    for (const b of before) {
      expect(text, `username ${b.username}`).to.not.include(`"${b.username}"`);
      expect(text, `trader id ${b.trader_id}`).to.not.include(b.trader_id);
      expect(text, `key hash of ${b.username}`).to.not.include(`"${b.api_key_hash}"`);
    }
    for (const e of original) if (e.type === 'ApiKeyRotated') expect(text).to.not.include(`"${e.data.api_key_hash}"`);
    // Keys issued and revoked: no hash, id or label of the source; each revocation names the key its issue made.
    const issued = original.flatMap((e) => (e.type === 'ApiKeyIssued' ? [e.data] : []));
    expect(issued.length, 'keys issued in the session').to.be.greaterThan(0);
    expect(original.some((e) => e.type === 'ApiKeyRevoked'), 'a key revoked in the session').to.equal(true);
    for (const k of issued) {
      expect(text, `key hash ${k.api_key_hash}`).to.not.include(`"${k.api_key_hash}"`);
      expect(text, `key id ${k.key_id}`).to.not.include(`"${k.key_id}"`);
      if (k.label !== null) expect(text, `label ${k.label}`).to.not.include(`"${k.label}"`);
    }
    const ids = new Set(events.flatMap((e) => (e.type === 'ApiKeyIssued' ? [e.data.key_id] : [])));
    expect(ids.size).to.equal(issued.length);
    // A primary key (provisioned, rotated) may be revoked too: its id is its hash's.
    for (const e of events) {
      if (e.type === 'TraderProvisioned' || e.type === 'ApiKeyRotated') ids.add(keyIdOf(e.data.api_key_hash));
      if (e.type === 'TradersProvisioned') for (const t of e.data.traders) ids.add(keyIdOf(t.api_key_hash));
    }
    for (const e of events) if (e.type === 'ApiKeyRevoked') expect(ids.has(e.data.key_id), `revoked ${e.data.key_id}`).to.equal(true);
    for (const e of original) {
      const cid = e.type === 'OrderSubmitted' ? e.data.order.client_order_id : null;
      if (cid !== null) expect(text, `client order id ${cid}`).to.not.include(`"client_order_id":"${cid}"`);
    }
    // The operator's words are kept; the target and the refusal name the team.
    const message = events.find((e) => e.type === 'AdminMessagePosted' && e.data.title === 'For trader3');
    expect(message?.type === 'AdminMessagePosted' ? [message.data.body, message.data.target_username] : null).to.deep.equal(['keep quoting, trader3', 'team-004']);
    const refused = events.find((e) => e.type === 'ScheduledActionFailed');
    expect(refused?.type === 'ScheduledActionFailed' ? refused.data.message : null).to.equal(`target user team-${String(created.length).padStart(3, '0')} not found`);
  });

  it('keeps the round: each team has its trader\'s positions and PnL, and the frozen standings rank the new names', () => {
    const events = text.trim().split('\n').map((l) => {
      const { hash: _hash, ...e } = JSON.parse(l) as ExchangeEvent & { hash: string };
      return e as ExchangeEvent;
    });
    const was = fold(original).state;
    const is = fold(events).state;
    const pnl = (rows: readonly { username: string; net_pnl: number }[], names: readonly string[]): number[] => names.map((n) => rows.find((r) => r.username === n)?.net_pnl ?? Number.NaN);
    const names = [...was.traders.all()].map((tr) => tr.username);
    expect(pnl(is.leaderboard.at(is.seq), names.map((_, i) => `team-${String(i + 1).padStart(3, '0')}`))).to.deep.equal(pnl(was.leaderboard.at(was.seq), names));
    const frozen = events.at(-1);
    expect(frozen?.type).to.equal('LeaderboardFrozen');
    if (frozen?.type === 'LeaderboardFrozen') expect(frozen.data.rows.map((r) => r.username)).to.deep.equal(is.leaderboard.at(is.seq - 1).map((r) => r.username));
  });

  it('refuses a faulty source (exit 1, the first bad seq named) and leaves no output behind', async () => {
    const lines = readFileSync(source, 'utf8').split('\n');
    lines[40] = (lines[40] as string).replace('"seq":41', '"seq":41,"extra":1');
    const bad = join(TMP, 'bad.ndjson');
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, lines.join('\n')));
    const target = join(TMP, 'never.ndjson');
    const r = await replay('export', '--file', bad, '--anonymize', '--out', target, '--quiet');
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/log fault at seq 41/);
    expect(existsSync(target)).to.equal(false);
    const usage = await replay('export', '--file', source, '--out', target);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/with --anonymize, any source/);
  });
});
