import { expect } from 'chai';
import { DomainError } from '../../src/commands/errors.ts';
import { applyTrade, averageEntry, FLAT, settle, unrealized } from '../../src/projections/position-math.ts';

describe('core: position arithmetic (average cost)', () => {
  it('opens and adds to a position at an averaged entry', () => {
    const p = applyTrade(applyTrade(FLAT, 2, 100), 2, 110);
    expect(p).to.deep.equal({ net: 4, cost: 420, realized: 0, fees: 0 });
    expect(averageEntry(p)).to.equal(105);
  });

  it('realizes on a reducing fill and keeps the average of what is left', () => {
    const p = applyTrade(applyTrade(FLAT, 4, 105), -1, 120);
    expect(p.net).to.equal(3);
    expect(p.realized).to.equal(15);
    expect(averageEntry(p)).to.equal(105);
  });

  it('realizes everything and flips at the fill price', () => {
    const p = applyTrade(applyTrade(FLAT, -3, 50), 5, 40);
    expect(p).to.deep.equal({ net: 2, cost: 80, realized: 30, fees: 0 });
    expect(averageEntry(p)).to.equal(40);
  });

  it('is null-average and zero-cost when flat', () => {
    const p = applyTrade(applyTrade(FLAT, 3, 10), -3, 12);
    expect(p).to.deep.equal({ net: 0, cost: 0, realized: 6, fees: 0 });
    expect(averageEntry(p)).to.equal(null);
  });

  it('settles: realizes net * (price - average) and flattens', () => {
    const p = settle(applyTrade(FLAT, -4, 100), 90);
    expect(p).to.deep.equal({ net: 0, cost: 0, realized: 40, fees: 0 });
  });

  it('marks unrealized at a price', () => {
    expect(unrealized(applyTrade(FLAT, 2, 100), 103)).to.equal(6);
    expect(unrealized(FLAT, 103)).to.equal(0);
  });

  it('refuses with overflow rather than a rounded number', () => {
    expect(() => applyTrade(FLAT, 1000, 2 ** 50)).to.throw(DomainError).with.property('code', 'overflow');
    expect(() => settle(applyTrade(FLAT, 1, 1), Number.MAX_SAFE_INTEGER)).to.not.throw();
    expect(() => settle(applyTrade(FLAT, 2, 1), Number.MAX_SAFE_INTEGER)).to.throw(DomainError);
  });
});
