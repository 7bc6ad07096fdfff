// The per-trader REST rate limit: at most `limit` accepted requests in any window of `windowMs`. A
// sliding window log per trader, kept as a ring of the accepted requests' times: expired times leave
// from the front, an accepted request joins at the back, so every check is amortized O(1) and exact
// (a fixed window would allow 2x the limit across a boundary). Refused requests are not recorded, so
// they never count against later windows. The ring grows only as far as a trader's real rate needs,
// which keeps a very high limit (benchmarks) from costing memory per idle trader.

export interface RateDecision {
  readonly allowed: boolean;
  /** Requests still allowed in the current window after this one. */
  readonly remaining: number;
  /** When refused: ms until the oldest accepted request leaves the window. */
  readonly retryAfterMs: number;
}

class TimeRing {
  times = new Float64Array(8);
  head = 0;
  size = 0;

  push(t: number, limit: number): void {
    if (this.size === this.times.length) this.grow(limit);
    this.times[(this.head + this.size) % this.times.length] = t;
    this.size++;
  }

  private grow(limit: number): void {
    const next = new Float64Array(Math.min(this.times.length * 2, Math.max(limit, 8)));
    for (let i = 0; i < this.size; i++) next[i] = this.times[(this.head + i) % this.times.length] as number;
    this.times = next;
    this.head = 0;
  }
}

export class SlidingWindowRateLimiter {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly rings = new Map<string, TimeRing>();

  constructor(limit: number, windowMs = 1000, now: () => number = () => performance.now()) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  take(key: string): RateDecision {
    const t = this.now();
    let ring = this.rings.get(key);
    if (ring === undefined) {
      ring = new TimeRing();
      this.rings.set(key, ring);
    }
    const cutoff = t - this.windowMs;
    const times = ring.times;
    while (ring.size > 0 && (times[ring.head] as number) <= cutoff) {
      ring.head = (ring.head + 1) % times.length;
      ring.size--;
    }
    if (ring.size >= this.limit) {
      const oldest = times[ring.head] as number;
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(0, oldest + this.windowMs - t) };
    }
    ring.push(t, this.limit);
    return { allowed: true, remaining: this.limit - ring.size, retryAfterMs: 0 };
  }
}
