// The demo's hidden "true" price per market: a seeded random walk on the tick grid, pulled gently back
// towards the reference price so a long run does not drift off. Makers quote around it and takers
// trade against quotes that stray from it, which gives the chart something to show.
import type { Prng } from './prng.ts';

export class FairValue {
  value: number;
  private readonly reference: number;
  private readonly tick: number;
  private readonly volatilityTicks: number;

  constructor(reference: number, tick: number, volatilityTicks: number) {
    this.value = reference;
    this.reference = reference;
    this.tick = tick;
    this.volatilityTicks = volatilityTicks;
  }

  step(rng: Prng): void {
    const pull = (this.reference - this.value) * 0.02;
    const move = rng.gauss() * this.volatilityTicks * this.tick + pull;
    this.value = Math.max(this.tick * 10, this.snap(this.value + move));
  }

  /** The nearest valid price (a positive multiple of the tick). */
  snap(price: number): number {
    return Math.max(this.tick, Math.round(price / this.tick) * this.tick);
  }
}
