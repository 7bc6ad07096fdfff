// The fan-out child's WebSocket series, which the main process serves on /metrics. The child records
// op latencies and refusals as the in-process gateway does (into cells of the same buckets), and when
// main asks before a scrape it answers with its figures and what the series gained since its previous
// answer; main adds that to its own series (ExchangeMetrics.addWsSeries), so the counters never go back,
// not even across a respawned child.
import type { WsFigures, WsSeriesIncrease } from '../operations/metrics/exchange-metrics.ts';
import { HistogramCell, LATENCY_BUCKETS } from '../operations/metrics/histogram-cell.ts';
import type { WsSeries } from '../ws/ws-context.ts';

export interface WsReport extends WsSeriesIncrease {
  readonly figures: WsFigures;
}

interface Reported {
  readonly cell: HistogramCell;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class WsRecorder implements WsSeries {
  private readonly ops = new Map<string, Reported>();
  private readonly refusals = new Map<string, { readonly op: string; readonly code: string; value: number; reported: number }>();

  wsOp(op: string): HistogramCell {
    let entry = this.ops.get(op);
    if (entry === undefined) {
      entry = { cell: new HistogramCell(LATENCY_BUCKETS, { op }), counts: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
      this.ops.set(op, entry);
    }
    return entry.cell;
  }

  wsRefused(op: string, code: string): void {
    const key = `${op} ${code}`;
    let entry = this.refusals.get(key);
    if (entry === undefined) {
      entry = { op, code, value: 0, reported: 0 };
      this.refusals.set(key, entry);
    }
    entry.value++;
  }

  /** The figures, and what the series gained since the previous report. */
  report(figures: WsFigures): WsReport {
    const ops: { op: string; counts: number[]; sum: number; count: number }[] = [];
    for (const [op, entry] of this.ops) {
      const { cell } = entry;
      if (cell.count === entry.count) continue;
      const counts: number[] = [];
      for (let i = 0; i < cell.counts.length; i++) {
        counts.push((cell.counts[i] as number) - (entry.counts[i] as number));
        entry.counts[i] = cell.counts[i] as number;
      }
      ops.push({ op, counts, sum: cell.sum - entry.sum, count: cell.count - entry.count });
      entry.sum = cell.sum;
      entry.count = cell.count;
    }
    const refusals: { op: string; code: string; n: number }[] = [];
    for (const entry of this.refusals.values()) {
      if (entry.value === entry.reported) continue;
      refusals.push({ op: entry.op, code: entry.code, n: entry.value - entry.reported });
      entry.reported = entry.value;
    }
    return { figures, ops, refusals };
  }
}
