// A seat's keys are the team's: the recorded trader's key issues, revocations and rotations are its own
// commands, dropped with its orders (src/server/practice/recorded-command.ts); another trader's are
// played as recorded.
import { expect } from 'chai';
import { keyIdOf } from '../../src/projections/api-keys.ts';
import { Client } from '../http/support/client.ts';
import { Recorder, writeLog } from './support/recordings.ts';
import { practiceEvents, practise } from './support/practice.ts';

describe('practice: a seat and its keys', function () {
  this.timeout(30_000);

  it('given a recording where the seat issues, revokes and rotates keys, when played with --seat, then only the other trader\'s key events are played and the team\'s key works to the end', async () => {
    const r = new Recorder();
    const alice = r.trader('alice');
    const bob = r.trader('bob');
    r.market('BTC-USD');
    r.run({ type: 'PatchMarket', market_id: 'BTC-USD', changes: { maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 50, max_open_orders: 3 } });
    const hash = (n: number): string => n.toString(16).padStart(64, 'b');
    r.run({ type: 'IssueApiKey', trader_id: alice, api_key_hash: hash(1), scope: 'read', label: 'notebook', expires_at: null });
    r.run({ type: 'IssueApiKey', trader_id: bob, api_key_hash: hash(2), scope: 'read', label: null, expires_at: null });
    r.order(alice, 'SELL', 101, 5);
    r.order(bob, 'BUY', 101, 2);
    r.run({ type: 'RevokeApiKey', trader_id: alice, key_id: keyIdOf(hash(1)) });
    r.run({ type: 'RotateApiKey', trader_id: alice, api_key_hash: hash(3) });
    r.order(bob, 'BUY', 101, 1);
    const recorded = r.events;

    const practice = await practise(writeLog(recorded), { seat: 'alice' });
    try {
      const report = await practice.finished;
      const events = practiceEvents(practice);
      const keyEvents = events.filter((e) => e.type === 'ApiKeyIssued' || e.type === 'ApiKeyRevoked' || e.type === 'ApiKeyRotated').map((e) => [e.type, 'trader_id' in e.data ? e.data.trader_id : null]);
      expect(keyEvents).to.deep.equal([['ApiKeyIssued', bob]]);
      const me = await new Client(practice.ready.url).request<{ trader_id: string }>('GET', '/api/v1/user', { apiKey: practice.ready.api_key });
      expect([me.status, me.body.trader_id]).to.deep.equal([200, alice]);
      // Bob's two buys meet the team's ask only if the team rests one: the seat's own ask is dropped, so they rest.
      expect(report.diverged).to.equal(2);
    } finally {
      await practice.close();
    }
  });
});
