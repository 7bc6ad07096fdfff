// The recorded logs under replay/fixtures/: what they are made from, and how to write them. Each has
// an NDJSON log with chain hashes and an .expected.json with the state hash and leaderboard at the
// head (and, for the reset fixture, just before the reset). The golden test replays them: a change to
// the code that alters what an existing log means fails it.
//
// Each expected state hash is recorded under both definitions: `state_hash`, as it was first written
// (versions 1 and 2, the whole history hashed: legacy-state-hash.ts, `replay state --state-hash
// --hash-version 2`), and `state_hash_v3`, the live state with the log's chain hash (state-hash.ts, what
// the server publishes and `replay state --state-hash` prints). `node replay/fixtures.ts --v3` adds the
// second to expected files that lack it, leaving everything they already hold as it is.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { canonicalJson } from '../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../src/events/hash.ts';
import { Exchange } from '../src/commands/exchange.ts';
import type { InMemoryEventLog } from '../src/events/in-memory-log.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { HistoryIndex } from '../src/projections/history/history-index.ts';
import { legacyStateHash } from '../src/projections/history/legacy-state-hash.ts';
import { stateHash } from '../src/projections/state-hash.ts';
import { SessionGenerator, type SessionOptions } from './session-generator.ts';

export const FIXTURES: Record<string, SessionOptions> = {
  // Recorded with schema version 1 (before trading-extensions.md): never rewritten.
  'round-with-settlement': { seed: 1, commands: 1200, settleAt: 800 },
  'reset-between-rounds': { seed: 2, commands: 1000, resetAt: 600 },
  // Schema version 2: every order type, time in force and self-trade prevention mode, client order ids
  // with repeats, cancel-all, a settlement and a reset.
  'order-types-and-cancel-all': { seed: 3, commands: 1500, settleAt: 900, resetAt: 1200, extensions: true },
};

export function fixturePath(name: string, ext: 'ndjson' | 'expected.json'): string {
  return new URL(`./fixtures/${name}.${ext}`, import.meta.url).pathname;
}

/** NDJSON lines with their chain hashes, as `replay export` writes them. */
export function toNdjson(events: Iterable<ExchangeEvent>): string {
  let previous = GENESIS_HASH;
  let out = '';
  for (const e of events) {
    previous = chainHash(previous, e);
    out += canonicalJson({ ...e, hash: previous }) + '\n';
  }
  return out;
}

export interface Expected {
  readonly events: number;
  /** The hash of versions 1 and 2 (the whole history), as the fixture was first recorded. */
  readonly state_hash: string;
  /** Version 3: the live state and the chain hash. */
  readonly state_hash_v3: string;
  readonly leaderboard: unknown;
  readonly before_reset?: { readonly seq: number; readonly state_hash: string; readonly state_hash_v3: string; readonly leaderboard: unknown };
}

export function expectedFor(events: readonly ExchangeEvent[]): Expected {
  const state = new Exchange().state;
  const history = new HistoryIndex();
  history.follow(state);
  let chain = GENESIS_HASH;
  let beforeReset: Expected['before_reset'];
  for (const e of events) {
    if (e.type === 'TradingReset') beforeReset = { seq: state.seq, state_hash: legacyStateHash(state, history), state_hash_v3: stateHash(state, chain), leaderboard: state.leaderboard.at(state.seq) };
    state.apply(e);
    chain = chainHash(chain, e);
  }
  return {
    events: events.length,
    state_hash: legacyStateHash(state, history),
    state_hash_v3: stateHash(state, chain),
    leaderboard: state.leaderboard.at(state.seq),
    ...(beforeReset === undefined ? {} : { before_reset: beforeReset }),
  };
}

// `node replay/fixtures.ts NAME...` writes those fixtures; without names, only the ones not written yet.
// A recorded log is evidence: one already written is never regenerated unless named.
if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === '--v3') {
  // Adds the version-3 hashes to the recorded expectations, checking that the version-1/2 ones this
  // build computes are still the recorded ones.
  for (const name of Object.keys(FIXTURES)) {
    const path = fixturePath(name, 'expected.json');
    const recorded = JSON.parse(readFileSync(path, 'utf8')) as Expected;
    const events = readFileSync(fixturePath(name, 'ndjson'), 'utf8').split('\n').filter((l) => l !== '').map((l) => {
      const { hash: _hash, ...event } = JSON.parse(l) as ExchangeEvent & { hash: string };
      return event as ExchangeEvent;
    });
    const now = expectedFor(events);
    if (now.state_hash !== recorded.state_hash || now.before_reset?.state_hash !== recorded.before_reset?.state_hash) throw new Error(`${name}: the version-1/2 state hash is no longer the recorded one`);
    const { before_reset, ...rest } = recorded;
    const updated = { ...rest, state_hash_v3: now.state_hash_v3, ...(before_reset === undefined ? {} : { before_reset: { ...before_reset, state_hash_v3: now.before_reset?.state_hash_v3 } }) };
    writeFileSync(path, JSON.stringify(updated, null, 2) + '\n');
    console.log(`${name}: state_hash_v3 ${now.state_hash_v3}`);
  }
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const named = process.argv.slice(2);
  for (const [name, options] of Object.entries(FIXTURES)) {
    if (named.length > 0 ? !named.includes(name) : existsSync(fixturePath(name, 'ndjson'))) continue;
    const exchange = new SessionGenerator(options).generate();
    const events = (exchange.log as InMemoryEventLog).all();
    writeFileSync(fixturePath(name, 'ndjson'), toNdjson(events));
    writeFileSync(fixturePath(name, 'expected.json'), JSON.stringify(expectedFor(events), null, 2) + '\n');
    console.log(`${name}: ${events.length} events`);
  }
}
