// The bots' seeded random source: the project's mulberry32 (replay/prng.ts) with the few draws the
// bots need, so a run's decisions and price paths repeat for the same seed. Not for anything secret.
import { prng } from '../replay/prng.ts';

export class Prng {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = prng(seed);
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Roughly normal (sum of uniforms), mean 0, deviation 1. */
  gauss(): number {
    let s = 0;
    for (let i = 0; i < 6; i++) s += this.next();
    return (s - 3) * Math.SQRT2;
  }

  /** A dependent source, so each bot has its own stream. */
  fork(): Prng {
    return new Prng(Math.floor(this.next() * 4294967296));
  }
}
