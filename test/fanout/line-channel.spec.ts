// The fan-out data channel's reader (src/server/fanout/line-channel.ts): records are lines, and the
// socket cuts its stream wherever it likes. Several lines in one chunk, a line across many chunks, a
// multi-byte character cut in two: every line comes out whole and in order.
import { expect } from 'chai';
import fc from 'fast-check';
import { LineReader } from '../../src/server/fanout/line-channel.ts';

describe('ws fan-out: the channel reader', () => {
  it('gives back the lines written, whatever the chunks the stream was cut into', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'z', '{', '"', 'é', '😀', ' ', '\\'), maxLength: 40 });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (lines, cutsAt) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        const cuts = [...new Set(cutsAt.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
        const out: string[] = [];
        const reader = new LineReader((l) => out.push(l));
        let from = 0;
        for (const at of [...cuts, bytes.length]) {
          reader.push(bytes.subarray(from, at));
          from = at;
        }
        expect(out).to.deep.equal(lines);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
