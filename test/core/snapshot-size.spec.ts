// A snapshot of a long competition's state restores: lists of any length (a message per settlement
// and announcement, a schedule's done entries) are restored one element at a time. Spread as the
// arguments of one push, past ~125,000 elements they overflowed the stack, and every start of a
// durable server with such a snapshot failed.
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import { ScheduleProjection, type ScheduleEntryView, type ScheduleSnapshot } from '../../src/projections/schedule.ts';
import { restoreSnapshot, takeSnapshot } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';

const COUNT = 200_000;

describe('core: snapshots of long lists', function () {
  this.timeout(60_000);

  it(`a state with ${COUNT.toLocaleString('en-US')} messages snapshots and restores to the same state hash`, () => {
    const exchange = new Exchange({ deltaRing: 0 });
    for (let i = 0; i < COUNT; i++) {
      const micros = 1_790_000_000_000_000 + i;
      const time = `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`;
      exchange.execute({ type: 'PostAdminMessage', time, message_id: `m${i}`, target_username: null, market: null, level: 'info', title: null, body: `note ${i}` });
    }
    const snapshot = JSON.parse(JSON.stringify(takeSnapshot(exchange.state))) as ReturnType<typeof takeSnapshot>;
    const restored = new Exchange({ deltaRing: 0 });
    restoreSnapshot(restored.state, snapshot);
    expect(stateHash(restored.state)).to.equal(stateHash(exchange.state));
  });

  it(`a schedule with ${COUNT.toLocaleString('en-US')} done entries restores`, () => {
    // The list's elements are only carried: their contents do not matter here.
    const done = Array.from({ length: COUNT }, (_, i) => ({ entry_id: `e${i}` }) as unknown as ScheduleEntryView);
    const schedule = new ScheduleProjection();
    schedule.restore({ pending: [], done } satisfies ScheduleSnapshot);
    expect(schedule.snapshot().done).to.have.length(COUNT);
  });
});
