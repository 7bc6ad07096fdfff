// Events carry the schema version they were written with; older versions are read through the
// upcasters, and a log written only with version 1 keeps the state hash it always had.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { Exchange } from '../../src/commands/exchange.ts';
import { parseEvent } from '../../src/events/event-schema.ts';
import { SCHEMA_VERSION, type ExchangeEvent } from '../../src/events/types.ts';
import { upcast, type RecordedEvent } from '../../src/events/upcasters/upcast.ts';
import { restoreSnapshot, takeSnapshot } from '../../src/projections/snapshot.ts';
import { HistoryIndex } from '../../src/projections/history/history-index.ts';
import { legacyStateHash } from '../../src/projections/history/legacy-state-hash.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { fixturePath, type Expected } from '../../replay/fixtures.ts';
import { at } from './dsl.ts';

function fixtureEvents(name: string): RecordedEvent[] {
  return readFileSync(fixturePath(name, 'ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const { hash: _hash, ...event } = JSON.parse(l) as Record<string, unknown>;
      return event as unknown as RecordedEvent;
    });
}

describe('core: event schema versions', () => {
  it('writes every new event with the current schema version', () => {
    const exchange = new Exchange();
    const event = exchange.execute({ type: 'ProvisionTrader', time: at(1), username: 'alice', trader_id: '00000000-0000-4000-8000-000000000001', api_key_hash: 'h' });
    expect(event.v).to.equal(SCHEMA_VERSION);
    expect(exchange.state.schema).to.equal(SCHEMA_VERSION);
  });

  it('reads a version-1 log (no v) as it always did: same state hash (version 1, from the whole history), state schema 1', () => {
    const events = fixtureEvents('round-with-settlement');
    expect(events.every((e) => e.v === undefined)).to.equal(true);
    const exchange = new Exchange();
    const history = new HistoryIndex();
    history.follow(exchange.state);
    for (const e of events) exchange.fold(e);
    const want = JSON.parse(readFileSync(fixturePath('round-with-settlement', 'expected.json'), 'utf8')) as Expected;
    expect(exchange.state.schema).to.equal(1);
    expect(legacyStateHash(exchange.state, history)).to.equal(want.state_hash);
  });

  it('hashes the schema version once a log holds a version-2 event', () => {
    const events = fixtureEvents('round-with-settlement');
    const v1 = new Exchange();
    for (const e of events) v1.fold(e);
    const v2 = new Exchange();
    for (const e of events) v2.fold({ ...upcast(e), v: SCHEMA_VERSION } as ExchangeEvent);
    expect(v2.state.schema).to.equal(SCHEMA_VERSION);
    expect(stateHash(v2.state)).to.not.equal(stateHash(v1.state));
  });

  it('refuses an event of a schema version it does not know', () => {
    const good = { seq: 1, time: at(1), type: 'TradingStopped', data: {} };
    expect(parseEvent(good).ok).to.equal(true);
    expect(parseEvent({ ...good, v: SCHEMA_VERSION }).ok).to.equal(true);
    expect(parseEvent({ ...good, v: 2 }).ok).to.equal(true);
    for (const v of [1, 4, '2', '3', null]) {
      const r = parseEvent({ ...good, v });
      expect(r.ok, `v=${JSON.stringify(v)}`).to.equal(false);
      if (!r.ok) expect(r.problem).to.match(/^v:/);
    }
  });

  it('keeps the schema version through a snapshot', () => {
    const events = fixtureEvents('reset-between-rounds');
    const source = new Exchange();
    for (const e of events) source.fold(e);
    const restored = new Exchange();
    restoreSnapshot(restored.state, JSON.parse(JSON.stringify(takeSnapshot(source.state))));
    expect(restored.state.schema).to.equal(1);
    expect(stateHash(restored.state)).to.equal(stateHash(source.state));
  });
});
