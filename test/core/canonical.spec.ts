// Canonical JSON (src/events/canonical.ts) is what every chain hash covers: it must stay byte for byte
// what it was. Its memo of object shapes is checked against the plain definition (sort the keys, drop
// undefined members, no whitespace), kept here as the model, over random JSON values (keys that collide
// on their first key, numeric-looking keys, unicode, nesting) and over the events of random sessions.
import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalJson, writeCanonical } from '../../src/events/canonical.ts';
import { sha256Canonical, sha256Hex } from '../../src/events/hash.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import { SessionGenerator } from '../../replay/session-generator.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import type { EventLog } from '../../src/events/event-log.ts';

function model(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('non-finite');
    return JSON.stringify(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v: unknown) => (v === undefined ? 'null' : model(v))).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${model(record[k])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError('unsupported');
}

describe('core: canonical JSON', () => {
  it('equals the plain definition on random values, shapes seen again included', () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'seq', 'type', 'data', '0', '10', '2', '__proto__', 'é', 'Z'), fc.string({ maxLength: 4 }));
    const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 6 }), fc.constant(undefined));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 6 })),
    }));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), (values) => {
        // Several values per run, so shapes met before are found in the memo.
        for (const v of values) if (v !== undefined) expect(canonicalJson(v)).to.equal(model(v));
      }),
      { numRuns: 2000, seed: 31 },
    );
  });

  it('written in pieces (a value too large for one string), is the same text, whatever the piece size', () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'seq', 'é', 'Z'), fc.string({ maxLength: 4 }));
    const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 6 }), fc.constant(undefined));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 5 }), fc.dictionary(key, tie('value'), { maxKeys: 5 })),
    }));
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 40 }), (v, pieceChars) => {
        if (v === undefined) return;
        const pieces: string[] = [];
        writeCanonical(v, (p) => pieces.push(p), pieceChars);
        expect(pieces.join('')).to.equal(model(v));
        for (const p of pieces.slice(0, -1)) expect(p.length).to.be.at.least(pieceChars);
        expect(sha256Canonical(v)).to.equal(sha256Hex(canonicalJson(v)));
      }),
      { numRuns: 1000, seed: 37 },
    );
  });

  it('equals the plain definition on every event of random sessions', () => {
    const events: ExchangeEvent[] = [];
    const log: EventLog = { headSeq: 0, append: (e: ExchangeEvent) => void events.push(e) };
    new SessionGenerator({ seed: 5, commands: 6000, traders: 12, markets: ['BTC-USD', 'ETH-USD'], extensions: true, settleAt: 3000, resetAt: 4500 }, new Exchange({ log })).generate();
    expect(events.length).to.be.greaterThan(2000);
    for (const e of events) expect(canonicalJson(e)).to.equal(model(e));
  });
});
