// The fan-out child folds main's events in seq order, holding one that comes early until the gap before
// it fills. On the ordered channel nothing should come early, so a gap that stays means an event was
// lost: the follower must say so (the child then ends and main starts another from a fresh snapshot)
// instead of holding every later event while the child answers from a state that stopped following.
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import type { EventLog } from '../../src/events/event-log.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { AdmissionClock } from '../../src/server/clock.ts';
import { EventFollower, MAX_EARLY } from '../../src/server/fanout/event-follower.ts';
import { InMemoryPersistence } from '../../src/server/persistence/in-memory.ts';
import { ExchangeService } from '../../src/server/service.ts';
import { SessionGenerator } from '../../replay/session-generator.ts';

class Collect implements EventLog {
  headSeq = 0;
  readonly events: ExchangeEvent[] = [];
  append(event: ExchangeEvent): void {
    this.headSeq = event.seq;
    this.events.push(event);
  }
}

function follower(): { follower: EventFollower; exchange: Exchange } {
  const exchange = new Exchange();
  const service = new ExchangeService(exchange, new InMemoryPersistence(), new AdmissionClock(), { durableAcks: false });
  return { follower: new EventFollower(service), exchange };
}

describe('fan-out: the child\'s event follower', () => {
  const log = new Collect();
  const source = new SessionGenerator({ seed: 5, commands: 8000, maxEvents: MAX_EARLY + 600, traders: 8, markets: ['BTC-USD'] }, new Exchange({ log }));
  source.generate();
  const events = log.events.map((e) => JSON.parse(JSON.stringify(e)) as ExchangeEvent);

  it('folds events in order, skipping ones it holds and holding one that comes early until its turn', () => {
    const { follower: f, exchange } = follower();
    const swapped = [...events];
    [swapped[10], swapped[11]] = [swapped[11] as ExchangeEvent, swapped[10] as ExchangeEvent];
    for (const e of swapped) f.push(e);
    f.push(events[5] as ExchangeEvent);
    expect(exchange.seq).to.equal(events.length);
    expect(stateHash(exchange.state)).to.equal(stateHash(source.exchange.state));
  });

  it('throws once more than MAX_EARLY events wait behind one that never came', () => {
    const { follower: f, exchange } = follower();
    const lost = 100;
    let thrown: unknown = null;
    for (const e of events) {
      if (e.seq === lost) continue;
      try {
        f.push(e);
      } catch (err) {
        thrown = err;
        break;
      }
    }
    expect(exchange.seq).to.equal(lost - 1);
    expect(thrown).to.be.instanceOf(Error);
    expect((thrown as Error).message).to.match(new RegExp(`event seq ${lost} never came`));
  });
});
