// The time code of the flat stores (src/events/time-code.ts): a canonical admission time becomes a number
// and comes back as the very same text; any other text is refused (NaN), so the stores keep it as given.
import { expect } from 'chai';
import fc from 'fast-check';
import { timeCode, timeText } from '../../src/events/time-code.ts';

const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const SAFE = Number.MAX_SAFE_INTEGER;

/** What a canonical-looking text means, by a second route: its microseconds (BigInt), or null for no such moment. */
function meaning(text: string): bigint | null {
  const [y, mo, d, h, mi, s, f] = text.match(/\d+/g)!.map(Number) as [number, number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(Date.UTC(2000, mo - 1, 1, h, mi, s));
  date.setUTCFullYear(y);
  date.setUTCDate(d);
  if (d < 1 || date.getUTCMonth() !== mo - 1) return null;
  return BigInt(date.getTime()) * 1000n + BigInt(f);
}

describe('core: time codes of admission times', () => {
  it('codes every canonical time a double holds exactly and gives back the same text', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -SAFE, max: SAFE }), { minLength: 1, maxLength: 20 }), fc.array(fc.integer({ min: 0, max: 2_000_000 }), { maxLength: 20 }), (starts, steps) => {
        // Runs of nearby times (the caches' common case) and jumps between far ones, interleaved.
        for (const start of starts) {
          let micros = start;
          for (const step of [0, ...steps]) {
            micros = Math.min(SAFE, micros + step);
            const text = timeText(micros);
            expect(text).to.match(CANONICAL);
            expect(meaning(text)).to.equal(BigInt(micros));
            expect(timeCode(text)).to.equal(micros);
          }
        }
      }),
      { numRuns: 200, seed: 41 },
    );
  });

  it('refuses to write a code that is not a whole number of microseconds a double holds exactly', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 0.5, Number.MAX_SAFE_INTEGER + 1, 8.64e21]) expect(() => timeText(bad), String(bad)).to.throw(RangeError);
  });

  it('refuses any text that is not exactly the canonical form of a time it can hold, and codes the rest exactly', () => {
    const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
    // Canonical-looking texts with any digits: impossible dates and times (month 13, a 30th of February,
    // hour 24, second 60) and years past what a double holds among them; half of them near today.
    const year = fc.oneof(digits(4), fc.integer({ min: 1680, max: 2260 }).map(String));
    const lookalike = fc.tuple(year, digits(2), digits(2), digits(2), digits(2), digits(2), digits(6)).map(([y, mo, d, h, mi, s, f]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${f}Z`);
    fc.assert(
      fc.property(lookalike, (text) => {
        const micros = meaning(text);
        const code = timeCode(text);
        if (micros === null || micros > BigInt(SAFE) || micros < -BigInt(SAFE)) expect(code, text).to.be.NaN;
        else {
          expect(code, text).to.equal(Number(micros));
          expect(timeText(code)).to.equal(text);
        }
      }),
      { numRuns: 3000, seed: 42 },
    );
    for (const text of [
      '2026-02-30T00:00:00.000000Z',
      '2026-11-25T24:00:00.000000Z',
      '2026-11-25T23:59:60.000000Z',
      '2026-11-25T21:43:17.123Z',
      '2026-11-25T21:43:17Z',
      '2026-11-25T21:43:17.1234567Z',
      '2026-11-25T21:43:17.123456+00:00',
      '2026-11-25 21:43:17.123456Z',
      '2026-11-25T21:43:17.12345aZ',
      '2026-11-25T21:43:17.-12345Z',
      '+02026-11-25T21:43:17.123456Z',
      '9999-12-31T23:59:59.999999Z',
      't1',
      '',
    ]) {
      // Once with the coding cache on another second, once with it on this text's own second.
      timeCode('2000-01-01T00:00:00.000000Z');
      expect(timeCode(text), text).to.be.NaN;
      timeCode('2026-11-25T21:43:17.000001Z');
      expect(timeCode(text), text).to.be.NaN;
    }
  });
});
