// The replay pipeline's compiled shape check (src/server/persistence/pipeline/compiled-event-check.ts)
// must accept exactly what zod's parseEvent accepts: accepting more would let a malformed event of an
// untrusted log through the fast path. Checked over every event of the recorded logs (both schema
// versions, every event type they hold) and of a generated session, and over random mutations of them
// (a member removed or added, a value replaced by one of another type, length or range).
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { parseEvent } from '../../src/events/event-schema.ts';
import { compiledEventCheck } from '../../src/server/persistence/pipeline/compiled-event-check.ts';
import { eventCheckSource, GENERATED_EVENT_CHECK } from '../../src/server/persistence/pipeline/event-check-source.ts';
import { fixturePath, FIXTURES } from '../../replay/fixtures.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const recorded: Json[] = Object.keys(FIXTURES).flatMap((name) =>
  readFileSync(fixturePath(name, 'ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { hash: _hash, ...event } = JSON.parse(line) as { hash: string } & Record<string, Json>;
      return event;
    }),
);

// Values of every kind at the edges of the schemas' rules: lengths 0/1/128/129 in code points and in
// UTF-16 units (an astral character is two units; a lone surrogate one; a family emoji is one grapheme
// of five code points), integers at 0, 1 and 2^53 - 1 and just past them, times nearly right.
const REPLACEMENTS: Json[] = [
  null, true, false, 0, 1, -1, 1.5, 2 ** 53 - 1, 2 ** 53, 1e300,
  '', 'x', 'x'.repeat(128), 'x'.repeat(129), `${'x'.repeat(127)}😀`, '😀'.repeat(128), '😀'.repeat(129), '\uD83D'.repeat(128), '\uD83D'.repeat(129),
  '👨‍👩‍👧'.repeat(25), '👨‍👩‍👧'.repeat(26), 'x-y.z:1', 'x'.repeat(64), 'x'.repeat(65), 'BUY', 'SELL', 'LIMIT', 'GTC',
  '2026-11-25T01:02:03.123456Z', '2026-11-25T01:02:03Z', '2026-11-25 01:02:03.123456Z',
  'OrderSubmitted', 'OrderCanceled', 'TradingReset', [], [1], {}, { a: 1 },
];

/** Every path to a member or element of a value, the root excluded. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...paths((value as Record<string | number, Json>)[k] as Json, [...prefix, k])]);
}

function mutate(value: Json, path: (string | number)[], how: 'delete' | 'add' | 'replace', replacement: Json): Json {
  const copy = structuredClone(value);
  let parent = copy as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (how === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (how === 'add') {
    const target = parent[last];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, Json>)['unexpected'] = 1;
    else parent[last] = replacement;
  } else parent[last] = replacement;
  return copy;
}

describe('compiled event check (replay pipeline)', function () {
  this.timeout(60_000);
  const check = compiledEventCheck;
  const agree = (value: Json): void => {
    const accepted = parseEvent(value).ok;
    // Lengths are counted in UTF-16 units, zod's in code points: where a string has astral characters,
    // the compiled check may only be the stricter (the sequential re-read with zod then decides).
    if (/[\uD800-\uDFFF]/.test(JSON.stringify(value))) {
      if (check(value)) expect(accepted, JSON.stringify(value)).to.equal(true);
    } else expect(check(value), JSON.stringify(value)).to.equal(accepted);
  };

  it('is generated from the event schemas as they are now (npm run generate:event-check)', () => {
    // The committed module must be what the schemas compile to today: a schema changed without
    // regenerating it would leave the fast path checking the old shapes.
    expect(readFileSync(GENERATED_EVENT_CHECK, 'utf8') === eventCheckSource(), 'event-check.generated.js is stale: run npm run generate:event-check').to.equal(true);
  });

  it('accepts every event of the recorded logs, of both schema versions', () => {
    const types = new Set(recorded.map((e) => (e as { type: string }).type));
    expect(types.size).to.be.greaterThan(12);
    expect(recorded.some((e) => !('v' in (e as object)))).to.equal(true);
    expect(recorded.some((e) => 'v' in (e as object))).to.equal(true);
    for (const event of recorded) {
      expect(parseEvent(event).ok).to.equal(true);
      agree(event);
    }
  });

  it('agrees with parseEvent on random mutations of recorded events', () => {
    const events = fc.constantFrom(...recorded);
    fc.assert(
      fc.property(events, fc.nat(), fc.constantFrom('delete' as const, 'add' as const, 'replace' as const), fc.constantFrom(...REPLACEMENTS), (event, pick, how, replacement) => {
        const all = paths(event);
        const path = all[pick % all.length] as (string | number)[];
        agree(mutate(event, path, how, replacement));
      }),
      { numRuns: 4000 },
    );
  });

  it('agrees with parseEvent on values that are not events at all', () => {
    for (const value of [...REPLACEMENTS, { type: 'OrderSubmitted' }, { v: 2 }, { v: 1, seq: 1, time: '2026-11-25T01:02:03.123456Z', type: 'TradingStarted', data: {} }]) agree(value);
  });
});
