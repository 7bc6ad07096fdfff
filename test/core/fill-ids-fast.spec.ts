// The fast ways to a fill id (the first fill's shortcut, the digit-by-digit tail) give exactly what the
// arithmetic gives, for any seed and index.
import { expect } from 'chai';
import fc from 'fast-check';
import { fillId } from '../../src/commands/fill-ids.ts';

function slowFillId(seed: string, index: number): string {
  const head = seed.slice(0, seed.length - 12);
  const node = Number.parseInt(seed.slice(-12), 16);
  return head + ((node + index) % 2 ** 48).toString(16).padStart(12, '0');
}

describe('core: fill ids', () => {
  it('are the same with and without the first-fill shortcut, whatever the seed', () => {
    const hexish = fc.string({ minLength: 0, maxLength: 40, unit: fc.constantFrom('0', '9', 'a', 'f', 'A', 'F', 'g', '-', ' ', '\u00a0', '\n') });
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), hexish), fc.nat(5), (seed, index) => {
        expect(fillId(seed, index)).to.equal(slowFillId(seed, index));
      }),
      { numRuns: 2000, seed: 21 },
    );
  });

  // (Heads that start with white space are in both: the digit-by-digit way builds its result with
  // String.prototype.trim, which must never see one.)
  it('carry from the low half of the tail into the high half and wrap at 2^48 as the arithmetic does', () => {
    // Tails next to the 24-bit and 48-bit boundaries, in either case, and indexes that cross them.
    const tail = fc.constantFrom('ffffffffffff', 'fffffffffffe', '000000ffffff', '000000fffff0', 'FFFFFFFFFFFF', 'abcdefABCDEF', '000000000000', '123456789abc');
    const index = fc.oneof(fc.nat(20), fc.integer({ min: 0, max: 2 ** 32 }), fc.constantFrom(2 ** 24, 2 ** 24 - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40));
    fc.assert(
      fc.property(fc.constantFrom('b0000009-0000-4000-8000-', '', 'x-', ' b0000009-', '\u3000x-', '\tx'), tail, index, (head, t, n) => {
        expect(fillId(head + t, n)).to.equal(slowFillId(head + t, n));
      }),
      { numRuns: 3000, seed: 22 },
    );
  });
});
