// The first fill's id shortcut gives exactly what the arithmetic gives, for any seed.
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
    const hexish = fc.string({ minLength: 0, maxLength: 40, unit: fc.constantFrom('0', '9', 'a', 'f', 'A', 'F', 'g', '-') });
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), hexish), fc.nat(5), (seed, index) => {
        expect(fillId(seed, index)).to.equal(slowFillId(seed, index));
      }),
      { numRuns: 2000, seed: 21 },
    );
  });
});
