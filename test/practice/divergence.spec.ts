// A bot trading first changes what follows, exactly as the rules say: the recorded commands are
// submitted again, and meet the world the bot made. Worked examples, each a recording made by the
// engine, played from a point where the recorded asks rest, with the team's bot (over REST) acting
// while the play is held.
import { expect } from 'chai';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { Client } from '../http/support/client.ts';
import { Recorder, writeLog } from './support/recordings.ts';
import { practiceEvents, practise } from './support/practice.ts';

type Submitted = Extract<ExchangeEvent, { type: 'OrderSubmitted' }>;

function submissionsOf(events: readonly ExchangeEvent[], trader: string): Submitted[] {
  return events.filter((e): e is Submitted => e.type === 'OrderSubmitted' && e.data.order.trader_id === trader);
}

/** A recording of alice, bob and carol in BTC-USD; the play starts where `build` calls start(). */
function recording(build: (r: Recorder, t: { alice: string; bob: string; carol: string }, start: () => void) => void): { file: string; from: string; traders: { alice: string; bob: string; carol: string } } {
  const r = new Recorder();
  const traders = { alice: r.trader('alice'), bob: r.trader('bob'), carol: r.trader('carol') };
  r.market('BTC-USD');
  let first = 0;
  build(r, traders, () => (first = r.exchange.seq + 1));
  const events = r.events;
  return { file: writeLog(events), from: events.find((e) => e.seq === first)?.time as string, traders };
}

describe('practice: a bot trading first changes what follows', function () {
  this.timeout(30_000);

  async function play(file: string, from: string, bot: (client: Client, apiKey: string) => Promise<void>) {
    const practice = await practise(file, { part: { from }, paused: true });
    const client = new Client(practice.ready.url);
    await bot(client, practice.ready.api_key);
    const resumed = await client.request('POST', '/api/v1/practice/resume', { token: `Bearer ${practice.ready.admin_token}` });
    expect(resumed.status).to.equal(200);
    const report = await practice.finished;
    const events = practiceEvents(practice);
    await practice.close();
    return { report, events, you: practice.ready.trader_id };
  }

  const takeAlicesAsk = async (client: Client, apiKey: string): Promise<void> => {
    const taken = await client.request<{ fills: { price: number; quantity: number }[] }>('POST', '/api/v1/orders', { apiKey, body: { market: 'BTC-USD', side: 'BUY', price: 101, quantity: 5 } });
    expect(taken.status).to.equal(201);
    expect(taken.body.fills.map((f) => [f.price, f.quantity])).to.deep.equal([[101, 5]]);
  };

  it('a taken ask makes the recorded taker\'s later order rest: its filled quantity differs, one diverged', async () => {
    const { file, from, traders } = recording((r, t, start) => {
      r.order(t.alice, 'SELL', 101, 5);
      start();
      r.order(t.bob, 'BUY', 101, 5);
    });
    const { report, events } = await play(file, from, takeAlicesAsk);
    const [bobs] = submissionsOf(events, traders.bob);
    expect(bobs?.data.fills).to.deep.equal([]);
    expect([bobs?.data.status, bobs?.data.remaining]).to.deep.equal(['open', 5]);
    expect([report.faithful, report.diverged]).to.deep.equal([false, 1]);
  });

  it('a taken ask makes the recorded taker fill elsewhere, by the rules: the next ask up, the same quantity (not diverged)', async () => {
    const { file, from, traders } = recording((r, t, start) => {
      r.order(t.alice, 'SELL', 101, 5);
      r.order(t.carol, 'SELL', 103, 5);
      start();
      r.order(t.bob, 'BUY', 103, 5);
    });
    const { report, events } = await play(file, from, takeAlicesAsk);
    const [bobs] = submissionsOf(events, traders.bob);
    expect(bobs?.data.fills.map((f) => [f.maker_trader_id, f.price, f.quantity])).to.deep.equal([[traders.carol, 103, 5]]);
    expect([report.faithful, report.diverged]).to.deep.equal([true, 0]);
    const bob = report.standings.find((s) => s.trader_id === traders.bob);
    // Recorded: bought 5 at 101, marked at carol's ask (103); here bought at 103, no ask left: marked at
    // the reference price (100). The team bought alice's 5 at 101.
    expect([bob?.recorded_pnl, bob?.practice_pnl]).to.deep.equal([10, -15]);
    expect(report.you.pnl).to.equal(-5);
  });

  it('a recorded cancel of an order the bot filled is skipped and counted', async () => {
    const { file, from } = recording((r, t, start) => {
      const ask = r.order(t.alice, 'SELL', 101, 5);
      start();
      r.run({ type: 'CancelOrder', trader_id: t.alice, order_id: ask });
    });
    const { report, events } = await play(file, from, takeAlicesAsk);
    expect(events.filter((e) => e.type === 'OrderCanceled')).to.deep.equal([]);
    expect([report.faithful, report.diverged]).to.deep.equal([false, 1]);
  });
});
