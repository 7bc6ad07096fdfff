// With nobody else trading, a practice run of a recorded log is the recording again: the same fills in
// the same order, the same positions and standings, and the report says faithful. Over the random
// sessions of the core's property tests (every order type, cancels, amends, cancel-alls, settlements,
// resets, operator commands, schedules, freezes), each recording played through the practice tool.
import { expect } from 'chai';
import { canonicalJson } from '../../src/events/canonical.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import fc from 'fast-check';
import { actionArb, Simulation } from '../core/simulation.ts';
import { eventsOf, randomSession, writeLog } from './support/recordings.ts';
import { fillsOf, practiceEvents, practise } from './support/practice.ts';

/** What an event records, less what differs by construction in another log (a freeze's seq, hash and rows, which include the team). */
function outcome(e: ExchangeEvent): string {
  return e.type === 'LeaderboardFrozen' ? `LeaderboardFrozen ${e.data.label}` : `${e.time} ${e.type} ${canonicalJson(e.data)}`;
}

async function playsFaithfully(sim: Simulation, hashes: boolean): Promise<void> {
  const recorded = eventsOf(sim.exchange);
  const practice = await practise(writeLog(recorded, hashes));
  try {
    const report = await practice.finished;
    const played = practiceEvents(practice);
    // The team's trader is the first event; then the recording, command for command.
    expect(played[0]?.type).to.equal('TraderProvisioned');
    expect(played.slice(1).map(outcome)).to.deep.equal(recorded.map(outcome));
    expect(fillsOf(played)).to.deep.equal(fillsOf(recorded));
    const state = practice.server.context.service.state;
    const was = sim.exchange.state;
    for (const trader of was.traders.all()) {
      expect(state.positions.recordsOf(trader.trader_id).map((r) => [r.market, r.values])).to.deep.equal(was.positions.recordsOf(trader.trader_id).map((r) => [r.market, r.values]));
    }
    expect(report.faithful).to.equal(true);
    expect(report.diverged).to.equal(0);
    const status = practice.player.status();
    expect([status.state, status.commands_replayed, status.commands_total]).to.deep.equal(['finished', recorded.length, recorded.length]);
    for (const row of report.standings) if (row.trader_id !== report.you.trader_id) expect(row.practice_pnl, row.username).to.equal(row.recorded_pnl);
    expect(report.standings.filter((r) => r.trader_id !== report.you.trader_id).map((r) => [r.username, r.practice_pnl])).to.deep.equal(was.leaderboard.at(was.seq).map((r) => [r.username, r.net_pnl]));
  } finally {
    await practice.close();
  }
}

describe('practice: faithful by construction', function () {
  this.timeout(120_000);

  it('a random session plays again fill for fill, with the same positions and standings (property)', async () => {
    let fills = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 50, maxLength: 400 }), fc.boolean(), async (actions, hashes) => {
        const sim = new Simulation();
        for (const a of actions) sim.step(a);
        fills += fillsOf(eventsOf(sim.exchange)).length;
        await playsFaithfully(sim, hashes);
      }),
      { numRuns: 25, seed: 3701 },
    );
    // The sessions trade: the property is about fills, not empty books.
    expect(fills).to.be.greaterThan(50);
  });

  it('a longer session, as GET /api/v1/admin/events writes it (no stored hashes)', async () => {
    await playsFaithfully(randomSession(4, 1500), false);
  });
});
