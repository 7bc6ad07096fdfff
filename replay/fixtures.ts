// The recorded logs under replay/fixtures/: what they are made from, and how to write them. Each has
// an NDJSON log with chain hashes and an .expected.json with the state hash and leaderboard at the
// head (and, for the reset fixture, just before the reset). The golden test replays them: a change to
// the code that alters what an existing log means fails it.
import { existsSync, writeFileSync } from 'node:fs';
import { canonicalJson } from '../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../src/events/hash.ts';
import { Exchange } from '../src/commands/exchange.ts';
import type { InMemoryEventLog } from '../src/events/in-memory-log.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
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
  readonly state_hash: string;
  readonly leaderboard: unknown;
  readonly before_reset?: { readonly seq: number; readonly state_hash: string; readonly leaderboard: unknown };
}

export function expectedFor(events: readonly ExchangeEvent[]): Expected {
  const state = new Exchange().state;
  let beforeReset: Expected['before_reset'];
  for (const e of events) {
    if (e.type === 'TradingReset') beforeReset = { seq: state.seq, state_hash: stateHash(state), leaderboard: state.leaderboard.at(state.seq) };
    state.apply(e);
  }
  return { events: events.length, state_hash: stateHash(state), leaderboard: state.leaderboard.at(state.seq), ...(beforeReset === undefined ? {} : { before_reset: beforeReset }) };
}

// `node replay/fixtures.ts NAME...` writes those fixtures; without names, only the ones not written yet.
// A recorded log is evidence: one already written is never regenerated unless named.
if (import.meta.url === `file://${process.argv[1]}`) {
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
