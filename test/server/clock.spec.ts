import { expect } from 'chai';
import { AdmissionClock, flatUuid, formatMicros, hashApiKey, newApiKey, parseMicros } from '../../src/server/clock.ts';

describe('server: admission clock and credentials', () => {
  it('formats RFC 3339 UTC with exactly six fractional digits, and parses it back', () => {
    for (const micros of [0, 1, 999_999, 1_000_000, 1_767_225_600_123_456, 1_767_225_599_999_999]) {
      const text = formatMicros(micros);
      expect(text).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(parseMicros(text)).to.equal(micros);
    }
    expect(formatMicros(1_767_225_600_123_456)).to.equal('2026-01-01T00:00:00.123456Z');
  });

  it('formats values no clock makes (years past what the core codes, NaN) as a Date does, or throws its RangeError', () => {
    expect(formatMicros(253_402_300_800_000_000)).to.equal('+010000-01-01T00:00:000000Z');
    expect(formatMicros(-62_167_219_200_000_000)).to.equal('0000-01-01T00:00:00.000000Z');
    expect(() => formatMicros(Number.NaN)).to.throw(RangeError);
  });

  it('makes random version-4 UUIDs: the version and variant fixed, every other digit drawn, none repeated across pool refills', () => {
    const ids = Array.from({ length: 2000 }, () => flatUuid());
    expect(new Set(ids).size).to.equal(ids.length);
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (const id of ids) {
      expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      for (let i = 0; i < 36; i++) seen[i]?.add(id.charAt(i));
    }
    // A digit written to the wrong place, or a byte read twice, leaves some position stuck or short.
    for (let i = 0; i < 36; i++) {
      const expected = [8, 13, 18, 23].includes(i) ? 1 : i === 14 ? 1 : i === 19 ? 4 : 16;
      expect(seen[i]?.size, `position ${i}`).to.equal(expected);
    }
  });

  it('stamps strictly increasing times, and continues after a recovered head', () => {
    const clock = new AdmissionClock();
    let previous = '';
    for (let i = 0; i < 10_000; i++) {
      const t = clock.stamp().time;
      expect(t > previous, `${t} after ${previous}`).to.equal(true);
      previous = t;
    }
    const future = formatMicros(parseMicros(previous) + 3_600_000_000);
    clock.advanceTo(future);
    expect(clock.stamp().time > future).to.equal(true);
  });

  it('issues exch_ keys of 32 lowercase hex characters, stored only as SHA-256', () => {
    const a = newApiKey();
    expect(a).to.match(/^exch_[0-9a-f]{32}$/);
    expect(newApiKey()).to.not.equal(a);
    expect(hashApiKey(a)).to.match(/^[0-9a-f]{64}$/);
    expect(hashApiKey(a)).to.equal(hashApiKey(a));
  });

  it('gives every stamp fresh UUIDs', () => {
    const s = new AdmissionClock().stamp();
    const ids = new Set([s.uuid(), s.uuid(), s.uuid()]);
    expect(ids.size).to.equal(3);
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
