// One trader's budget: a token bucket (capacity `burst`, refilled at `rate` per second) that also
// keeps decisions.md's rule exactly: at most `rate` accepted in ANY one-second window. A bucket alone
// would allow burst + rate within a second (a full bucket, then a second of refill), so the times of
// the accepted requests of the last second are kept too, as a ring: expired times leave from the
// front, an accepted one joins at the back (amortized O(1)). With the default burst = rate the window
// is what binds, exactly as the sliding window log it replaces; a smaller burst also smooths arrivals
// (e.g. burst 10 at rate 100: ten at once, then one every 10 ms). A refused request takes no token
// and leaves no time, so it never counts against a later second. The ring grows only as far as the
// trader's real rate needs, so a very high rate (benchmarks) costs no memory per idle trader.

export interface BudgetDecision {
  readonly allowed: boolean;
  /** Requests the trader may still send right now after this one. */
  readonly remaining: number;
  /** When refused: ms until one more would be accepted. */
  readonly retryAfterMs: number;
}

const WINDOW_MS = 1000;
const MIN_RETRY_MS = 0.001;

export class TokenBucket {
  private tokens: number;
  private last: number;
  private times = new Float64Array(8);
  private head = 0;
  private size = 0;
  private readonly rate: number;
  private readonly burst: number;

  constructor(rate: number, burst: number, now: number) {
    this.rate = rate;
    this.burst = Math.min(burst, rate);
    this.tokens = this.burst;
    this.last = now;
  }

  take(t: number): BudgetDecision {
    if (t > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) * this.rate) / WINDOW_MS);
      this.last = t;
    }
    const cutoff = t - WINDOW_MS;
    const times = this.times;
    while (this.size > 0 && (times[this.head] as number) <= cutoff) {
      this.head = (this.head + 1) % times.length;
      this.size--;
    }
    const windowFull = this.size >= this.rate;
    if (this.tokens < 1 || windowFull) {
      const forToken = this.tokens < 1 ? ((1 - this.tokens) * WINDOW_MS) / this.rate : 0;
      const forWindow = windowFull ? (times[this.head] as number) + WINDOW_MS - t : 0;
      // Never 0 for a refusal: rounding can bring the wait to 0 (or below) while one more is still refused.
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(MIN_RETRY_MS, forToken, forWindow) };
    }
    this.tokens -= 1;
    this.push(t);
    return { allowed: true, remaining: Math.max(0, Math.min(Math.floor(this.tokens), this.rate - this.size)), retryAfterMs: 0 };
  }

  private push(t: number): void {
    if (this.size === this.times.length) {
      const next = new Float64Array(Math.min(this.times.length * 2, Math.max(this.rate, 8)));
      for (let i = 0; i < this.size; i++) next[i] = this.times[(this.head + i) % this.times.length] as number;
      this.times = next;
      this.head = 0;
    }
    this.times[(this.head + this.size) % this.times.length] = t;
    this.size++;
  }
}

/**
 * The budgets of every trader: one bucket per trader, shared by every REST trading/account route and
 * every WebSocket trading op of that trader, whichever connection it comes over.
 */
export class TraderBudgets {
  readonly rate: number;
  readonly burst: number;
  private readonly now: () => number;
  private readonly buckets = new Map<string, TokenBucket>();

  /** `now` must never go back (the default, performance.now(), does not): the one-second rule is kept on its scale. */
  constructor(rate: number, burst: number, now: () => number = () => performance.now()) {
    this.rate = rate;
    this.burst = Math.min(burst, rate);
    this.now = now;
  }

  take(traderId: string): BudgetDecision {
    const t = this.now();
    let bucket = this.buckets.get(traderId);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.rate, this.burst, t);
      this.buckets.set(traderId, bucket);
    }
    return bucket.take(t);
  }
}
