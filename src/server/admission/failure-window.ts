// Failures per key (a remote address) in a sliding window: the admin guard's brute-force brake. Each
// key keeps the times of its failures inside the window, at most `limit` of them, so memory per key
// is bounded; keys whose failures all expired are swept when the table grows.

export class FailureWindow {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly failures = new Map<string, number[]>();

  constructor(limit: number, windowMs: number, now: () => number = () => performance.now()) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** ms until `key` may try again, or 0 when it is not locked out. */
  lockedFor(key: string): number {
    const times = this.live(key, this.now());
    if (times === undefined || times.length < this.limit) return 0;
    return Math.max(1, (times[0] as number) + this.windowMs - this.now());
  }

  /** Records one failure; returns how many `key` has in the window now. */
  record(key: string): number {
    const t = this.now();
    let times = this.live(key, t);
    if (times === undefined) {
      if (this.failures.size >= 10_000) this.sweep(t);
      times = [];
      this.failures.set(key, times);
    }
    times.push(t);
    if (times.length > this.limit) times.shift();
    return times.length;
  }

  private live(key: string, t: number): number[] | undefined {
    const times = this.failures.get(key);
    if (times === undefined) return undefined;
    while (times.length > 0 && (times[0] as number) <= t - this.windowMs) times.shift();
    return times;
  }

  private sweep(t: number): void {
    for (const [key, times] of this.failures) if (times.length === 0 || (times[times.length - 1] as number) <= t - this.windowMs) this.failures.delete(key);
  }
}
