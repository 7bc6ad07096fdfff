// A histogram's label set as plain fields: observing is a bucket search and three increments. Kept
// apart from prom-client (cells.ts renders these through it) so the fan-out child, which only records
// and reports, does not load it.

/** Latency buckets in seconds: the order path answers in well under a millisecond when idle. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class HistogramCell {
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  readonly labels: Readonly<Record<string, string>>;
  private readonly bounds: readonly number[];

  constructor(bounds: readonly number[], labels: Readonly<Record<string, string>>) {
    this.bounds = bounds;
    this.labels = labels;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }

  /** Adds observations made elsewhere: per-bucket counts (the same bounds), their sum and count. */
  add(counts: readonly number[], sum: number, count: number): void {
    for (let i = 0; i < this.counts.length && i < counts.length; i++) this.counts[i] = (this.counts[i] as number) + (counts[i] as number);
    this.sum += sum;
    this.count += count;
  }

  /** Milliseconds measured since `startedMs` (performance.now()), observed in seconds. */
  observeSince(startedMs: number): void {
    this.observe((performance.now() - startedMs) / 1000);
  }
}
