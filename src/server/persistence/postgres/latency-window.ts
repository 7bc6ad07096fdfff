// Flush latency figures for the status: the last, the maximum since start, and p50/p99 over a window
// of recent flushes (a ring, so a long-running writer reports how it does now, not on average).
export interface LatencyFigures {
  readonly last: number | null;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

export class LatencyWindow {
  private readonly ring: Float64Array;
  private count = 0;
  private last: number | null = null;
  private max: number | null = null;
  private cached: LatencyFigures | null = null;

  constructor(size = 1024) {
    this.ring = new Float64Array(size);
  }

  record(ms: number): void {
    this.ring[this.count % this.ring.length] = ms;
    this.count++;
    this.last = ms;
    if (this.max === null || ms > this.max) this.max = ms;
    this.cached = null;
  }

  /** Sorted once per new sample at most, so a polled /health costs nothing extra. */
  figures(): LatencyFigures {
    if (this.cached !== null) return this.cached;
    const n = Math.min(this.count, this.ring.length);
    if (n === 0) return (this.cached = { last: null, p50: null, p99: null, max: null });
    const sorted = this.ring.slice(0, n).sort();
    const at = (q: number) => round(sorted[Math.min(n - 1, Math.ceil(q * n) - 1)] as number);
    this.cached = { last: round(this.last as number), p50: at(0.5), p99: at(0.99), max: round(this.max as number) };
    return this.cached;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
