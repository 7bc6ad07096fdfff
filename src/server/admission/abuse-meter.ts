// Spots a WebSocket connection that keeps sending far past its budget: one refused at least
// `threshold` times in each of `seconds` consecutive one-second intervals, counted from the first
// refusal of the run (not from calendar seconds, so the run really lasts that long: at least
// seconds - 1 full seconds before it can end). A client that misjudges its budget for a moment gets
// `rate_limit_exceeded` rejects and keeps its connection; one that hammers on regardless is closed
// (1008). Meanwhile, once an interval has its `threshold` refusals, the connection's further frames
// wait for the next interval (`holdUntil`): its socket is paused and TCP slows the sender, so a flood
// costs the server at most `threshold` refusals a second per connection instead of one per frame.

export class AbuseMeter {
  private readonly threshold: number;
  private readonly seconds: number;
  private start = 0;
  private interval = -1;
  private count = 0;

  constructor(threshold: number, seconds: number) {
    this.threshold = threshold;
    this.seconds = seconds;
  }

  /** When the current interval has its `threshold` refusals: the time (ms) it ends; else 0. */
  holdUntil(): number {
    return this.count >= this.threshold ? this.start + (this.interval + 1) * 1000 : 0;
  }

  /** Records one refusal at time `t` (ms); true when the connection has now abused for long enough. */
  refused(t: number): boolean {
    let k = this.interval < 0 ? 0 : Math.floor((t - this.start) / 1000);
    if (this.interval < 0 || k !== this.interval) {
      // The run goes on only into the very next interval, and only if the last one was abusive.
      if (this.interval < 0 || k !== this.interval + 1 || this.count < this.threshold) {
        this.start = t;
        k = 0;
      }
      this.interval = k;
      this.count = 0;
    }
    this.count++;
    return this.count >= this.threshold && this.interval + 1 >= this.seconds;
  }
}
