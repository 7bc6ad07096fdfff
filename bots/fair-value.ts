// A market's hidden "true" price: a seeded random walk on the tick grid with an optional trend,
// pulled back towards its start by the configured mean reversion. Makers quote around it and takers
// trade against quotes that stray from it.
import type { FairValueSettings } from './config.ts';
import type { Prng } from './prng.ts';

export class FairValue {
  value: number;
  private readonly start: number;
  private readonly tick: number;
  private readonly settings: FairValueSettings;

  constructor(start: number, tick: number, settings: FairValueSettings) {
    this.value = start;
    this.start = start;
    this.tick = tick;
    this.settings = settings;
  }

  step(rng: Prng): void {
    const pull = (this.start - this.value) * this.settings.mean_reversion;
    const move = rng.gauss() * this.settings.volatility_ticks * this.tick + this.settings.trend_ticks * this.tick + pull;
    this.value = Math.max(this.tick * 10, this.snap(this.value + move));
  }

  /** The nearest valid price (a positive multiple of the tick). */
  snap(price: number): number {
    return Math.max(this.tick, Math.round(price / this.tick) * this.tick);
  }
}
