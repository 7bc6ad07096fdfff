// Operator commands of a real competition (docs/api.md, "Running a competition") as given-events / when-command / then-event specs.
import { expect } from 'chai';
import { InMemoryEventLog } from '../../src/events/in-memory-log.ts';
import { rerun } from '../../replay/audit.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import type { EventBody, ScheduleEntryFact } from '../../src/events/types.ts';
import { restoreSnapshot, takeSnapshot } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { given } from './dsl.ts';
import { ALICE, BOB, BTC, CAROL, orderRested, traderProvisioned, WORLD } from './fixtures.ts';

const T1 = '00000000-0000-4000-8000-0000000000a1';
const T2 = '00000000-0000-4000-8000-0000000000a2';
const E1 = '00000000-0000-4000-8000-0000000000e1';
const E2 = '00000000-0000-4000-8000-0000000000e2';
const M1 = '00000000-0000-4000-8000-0000000000f1';
const HASH = 'a'.repeat(64);
/** Before every `when` of the DSL (its commands run at second 1). */
const EARLY = '2026-01-01T00:00:00.500000Z';
const LATE = '2026-01-01T00:59:00.000000Z';

function scheduleSet(...entries: ScheduleEntryFact[]): EventBody {
  return { type: 'ScheduleSet', data: { entries } };
}

describe('core: ProvisionTraders (bulk)', () => {
  it('provisions every trader in one event, names trimmed, keys only as hashes', () => {
    const s = given(traderProvisioned(ALICE, 'alice'));
    s.when({ type: 'ProvisionTraders', traders: [{ username: ' t1 ', trader_id: T1, api_key_hash: 'h1' }, { username: 't2', trader_id: T2, api_key_hash: 'h2' }] }).then({
      type: 'TradersProvisioned',
      data: { traders: [{ trader_id: T1, username: 't1', api_key_hash: 'h1' }, { trader_id: T2, username: 't2', api_key_hash: 'h2' }] },
    });
    expect(s.exchange.state.keys.byApiKeyHash('h2')?.trader_id).to.equal(T2);
    expect(s.exchange.state.traders.count).to.equal(3);
  });

  it('refuses the whole batch naming every bad row: duplicates within it or with a trader (409), invalid names (400)', () => {
    given(traderProvisioned(ALICE, 'alice'))
      .when({ type: 'ProvisionTraders', traders: [{ username: 'x', trader_id: T1, api_key_hash: 'h1' }, { username: 'alice', trader_id: T2, api_key_hash: 'h2' }, { username: 'x ', trader_id: CAROL, api_key_hash: 'h3' }] })
      .thenRejects('username_taken', '2 bad rows, nothing provisioned: row 2 ("alice"): username already exists; row 3 ("x"): duplicate of row 1');
    given()
      .when({ type: 'ProvisionTraders', traders: [{ username: '', trader_id: T1, api_key_hash: 'h1' }, { username: 'ok', trader_id: T2, api_key_hash: 'h2' }] })
      .thenRejects('invalid_username', /^1 bad row, nothing provisioned: row 1 \(""\): username is required$/);
    given().when({ type: 'ProvisionTraders', traders: [] }).thenRejects('invalid_request');
  });
});

describe('core: RotateApiKey, DisableTrader, EnableTrader', () => {
  it('rotation replaces the key hash: the old one no longer matches', () => {
    const s = given(...WORLD);
    s.when({ type: 'RotateApiKey', trader_id: ALICE, api_key_hash: 'new' }).then({ type: 'ApiKeyRotated', data: { trader_id: ALICE, api_key_hash: 'new' } });
    expect(s.exchange.state.keys.byApiKeyHash('hash-alice')).to.equal(undefined);
    expect(s.exchange.state.keys.byApiKeyHash('new')?.trader_id).to.equal(ALICE);
    given(...WORLD).when({ type: 'RotateApiKey', trader_id: CAROL, api_key_hash: 'x' }).thenRejects('trader_not_found');
  });

  it('disabling cancels every open order of the trader in the same event and marks its leaderboard row', () => {
    const s = given(...WORLD, orderRested('a1', ALICE, 'BUY', 90, 2), orderRested('b1', BOB, 'SELL', 110, 1), orderRested('a2', ALICE, 'SELL', 120, 3));
    s.when({ type: 'DisableTrader', trader_id: ALICE }).then({
      type: 'TraderDisabled',
      data: {
        trader_id: ALICE,
        canceled_orders: [
          { order_id: 'a1', trader_id: ALICE, market: BTC, side: 'BUY', price: 90, remaining: 2 },
          { order_id: 'a2', trader_id: ALICE, market: BTC, side: 'SELL', price: 120, remaining: 3 },
        ],
      },
    });
    const state = s.exchange.state;
    expect(state.books.openOrders(ALICE)).to.deep.equal([]);
    expect(state.books.openOrders(BOB)).to.have.length(1);
    expect(state.traders.get(ALICE)?.disabled).to.equal(true);
    const rows = state.leaderboard.at(state.seq);
    expect(rows.find((r) => r.trader_id === ALICE)?.disabled).to.equal(true);
    expect(rows.find((r) => r.trader_id === BOB)).to.not.have.property('disabled');
  });

  it('refuses disabling twice, enabling an enabled trader, and unknown traders; enabling clears the mark', () => {
    const disabled: EventBody = { type: 'TraderDisabled', data: { trader_id: ALICE, canceled_orders: [] } };
    given(...WORLD, disabled).when({ type: 'DisableTrader', trader_id: ALICE }).thenRejects('trader_disabled');
    given(...WORLD).when({ type: 'EnableTrader', trader_id: ALICE }).thenRejects('trader_not_disabled');
    given(...WORLD).when({ type: 'DisableTrader', trader_id: CAROL }).thenRejects('trader_not_found');
    const s = given(...WORLD, disabled);
    s.when({ type: 'EnableTrader', trader_id: ALICE }).then({ type: 'TraderEnabled', data: { trader_id: ALICE } });
    expect(s.exchange.state.traders.get(ALICE)).to.not.have.property('disabled');
  });
});

describe('core: SetSchedule and RunScheduledAction', () => {
  it('sets the pending entries in time order; refuses a time not in the future or a bad value (400)', () => {
    const s = given();
    s.when({ type: 'SetSchedule', entries: [{ entry_id: E1, at: LATE, action: { action: 'stop_trading' } }, { entry_id: E2, at: '2026-01-01T00:30:00.000000Z', action: { action: 'start_trading' } }] }).then(
      scheduleSet({ entry_id: E1, at: LATE, action: { action: 'stop_trading' } }, { entry_id: E2, at: '2026-01-01T00:30:00.000000Z', action: { action: 'start_trading' } }),
    );
    expect(s.exchange.state.schedule.pendingList().map((e) => e.entry_id)).to.deep.equal([E2, E1]);
    given().when({ type: 'SetSchedule', entries: [{ entry_id: E1, at: EARLY, action: { action: 'stop_trading' } }] }).thenRejects('invalid_schedule', /entry 1: at .* is not in the future/);
    given()
      .when({ type: 'SetSchedule', entries: [{ entry_id: E1, at: LATE, action: { action: 'settle_market', market_id: BTC, settlement_price: 0, announcement: null } }] })
      .thenRejects('invalid_schedule', 'entry 1: settlement_price must be an integer greater than 0');
  });

  it('runs a due entry as its ordinary command, the event naming the entry; then it is done and cannot run again', () => {
    const s = given(...WORLD, scheduleSet({ entry_id: E1, at: EARLY, action: { action: 'disable_market', market_id: BTC } }));
    s.when({ type: 'RunScheduledAction', entry_id: E1, message_id: M1 }).then({ type: 'MarketPatched', data: { market_id: BTC, changes: { enabled: false }, schedule_entry: E1 } });
    const state = s.exchange.state;
    expect(state.markets.get(BTC)?.status).to.equal('disabled');
    expect(state.schedule.pendingList()).to.deep.equal([]);
    expect(state.schedule.doneList()).to.have.length(1);
    expect(state.schedule.doneList()[0]).to.include({ entry_id: E1, status: 'ran', seq: state.seq });
    given(...WORLD, scheduleSet({ entry_id: E1, at: EARLY, action: { action: 'start_trading' } }), { type: 'TradingStarted', data: { schedule_entry: E1 } })
      .when({ type: 'RunScheduledAction', entry_id: E1, message_id: M1 })
      .thenRejects('schedule_entry_not_pending');
  });

  it('refuses an entry that is not due yet; records a refused action as ScheduledActionFailed', () => {
    given(scheduleSet({ entry_id: E1, at: LATE, action: { action: 'start_trading' } })).when({ type: 'RunScheduledAction', entry_id: E1, message_id: M1 }).thenRejects('schedule_entry_not_due');
    const s = given(scheduleSet({ entry_id: E1, at: EARLY, action: { action: 'settle_market', market_id: BTC, settlement_price: 5, announcement: null } }));
    s.when({ type: 'RunScheduledAction', entry_id: E1, message_id: M1 }).then({ type: 'ScheduledActionFailed', data: { schedule_entry: E1, code: 'market_not_configured', message: 'market BTC-USD is not configured' } });
    expect(s.exchange.state.schedule.doneList()[0]).to.include({ status: 'failed', error: 'market_not_configured: market BTC-USD is not configured' });
  });

  it('posts a scheduled message with the stamped message id', () => {
    const s = given(scheduleSet({ entry_id: E1, at: EARLY, action: { action: 'post_message', level: 'warning', body: ' halt soon ', title: null, market: null, target_username: null } }));
    s.when({ type: 'RunScheduledAction', entry_id: E1, message_id: M1 }).then({
      type: 'AdminMessagePosted',
      data: { message_id: M1, target_username: null, target_trader_id: null, market: null, level: 'warning', title: null, body: 'halt soon', schedule_entry: E1 },
    });
  });
});

describe('core: FreezeLeaderboard', () => {
  it('records the standings at the head with the given head hash; the label must be new', () => {
    const s = given(...WORLD);
    const event = s.when({ type: 'FreezeLeaderboard', label: ' round 1 ', as_of_seq: 3, head_hash: HASH }).then({
      type: 'LeaderboardFrozen',
      data: {
        label: 'round 1',
        as_of_seq: 3,
        head_hash: HASH,
        rows: [
          { rank: 1, trader_id: ALICE, username: 'alice', net_pnl: 0, realized_pnl: 0, unrealized_pnl: 0, gross_exposure: 0 },
          { rank: 2, trader_id: BOB, username: 'bob', net_pnl: 0, realized_pnl: 0, unrealized_pnl: 0, gross_exposure: 0 },
        ],
      },
    });
    expect(s.exchange.state.official.seqOf('round 1')).to.equal(event.seq);
    expect(s.history.official.byLabel('round 1')?.seq).to.equal(event.seq);
    const frozen: EventBody = { type: 'LeaderboardFrozen', data: { label: 'round 1', as_of_seq: 3, head_hash: HASH, rows: [] } };
    given(...WORLD, frozen).when({ type: 'FreezeLeaderboard', label: 'round 1', as_of_seq: 4, head_hash: HASH }).thenRejects('label_taken');
    given().when({ type: 'FreezeLeaderboard', label: '\u0007', as_of_seq: 0, head_hash: HASH }).thenRejects('invalid_label');
    given().when({ type: 'FreezeLeaderboard', label: null, as_of_seq: 0, head_hash: HASH }).then({ type: 'LeaderboardFrozen', data: { label: 'seq 0', as_of_seq: 0, head_hash: HASH, rows: [] } });
  });
});

describe('core: operator state in the hash, snapshots and the audit', () => {
  it('snapshot + tail equals the full fold, and every operator event re-runs from its command', () => {
    const full = given(
      ...WORLD,
      orderRested('a1', ALICE, 'BUY', 90, 2),
      { type: 'TradersProvisioned', data: { traders: [{ trader_id: T1, username: 't1', api_key_hash: 'h1' }] } },
      { type: 'ApiKeyRotated', data: { trader_id: BOB, api_key_hash: 'bob2' } },
      // Set at seq 7 (time µs 7), due and run at seq 8 (time µs 8): a log the audit accepts.
      scheduleSet({ entry_id: E1, at: '2026-01-01T00:00:00.000008Z', action: { action: 'stop_trading' } }, { entry_id: E2, at: LATE, action: { action: 'start_trading' } }),
      { type: 'TradingStopped', data: { schedule_entry: E1 } },
    );
    const ex = full.exchange;
    const snap = JSON.parse(JSON.stringify(takeSnapshot(ex.state))) as ReturnType<typeof takeSnapshot>;
    const tail = [
      ex.execute({ type: 'DisableTrader', trader_id: ALICE, time: '2026-01-01T00:00:20.000000Z' }),
      ex.execute({ type: 'FreezeLeaderboard', label: 'final', as_of_seq: ex.seq, head_hash: HASH, time: '2026-01-01T00:00:21.000000Z' }),
    ];
    const restored = new Exchange();
    restoreSnapshot(restored.state, snap);
    for (const e of tail) restored.fold(e);
    expect(stateHash(restored.state)).to.equal(stateHash(ex.state));
    expect(restored.state.schedule.pendingList().map((e) => e.entry_id)).to.deep.equal([E2]);
    expect(restored.state.official.seqOf('final')).to.equal(tail[1]?.seq);
    const frozen = tail[1];
    expect(frozen?.type === 'LeaderboardFrozen' ? frozen.data.rows.find((r) => r.trader_id === ALICE)?.disabled : undefined).to.equal(true);

    // The audit: each recorded event's command, decided again, gives the same event.
    const again = new Exchange();
    for (const e of (ex.log as InMemoryEventLog).all()) rerun(again, e);
    expect(stateHash(again.state)).to.equal(stateHash(ex.state));
  });
});
