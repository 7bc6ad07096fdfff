import { expect } from 'chai';
import { AdmissionClock, formatMicros, hashApiKey, newApiKey, parseMicros } from '../../src/server/clock.ts';

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
