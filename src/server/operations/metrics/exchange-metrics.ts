// The exchange's Prometheus series (prom-client). One instance per server: the HTTP app, the WebSocket
// gateway, the service and the persistence writer report into it; GET /metrics (or the listener on
// METRICS_BIND_ADDR) renders it together with the process metrics. Label sets are resolved once (per
// route, per op, per command type) and counting on the order path is a field increment (see cells.ts).
// What only needs to be known at scrape time (connections, queue depth, writer mode) is read then.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { RECENT_ORDERS } from '../../../projections/orders/order-store.ts';
import type { PersistenceMode, PersistenceStatus } from '../../persistence/persistence.ts';
import { CellCounter, CellHistogram, type CounterCell } from './cells.ts';
import { LATENCY_BUCKETS, type HistogramCell } from './histogram-cell.ts';

const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PERSISTENCE_MODES: readonly PersistenceMode[] = ['disabled', 'ok', 'retrying', 'backpressured', 'stopped'];

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** What the WebSocket gateway reports at scrape time. */
export interface WsFigures {
  readonly connections: number;
  readonly authenticated: number;
  readonly subscriptions: number;
  readonly framesSent: number;
  readonly lagDrops: number;
}

/**
 * The WebSocket series of a gateway in another process (the fan-out child), as increases since its
 * previous report: latency per op (bucket counts, not cumulative; sum; count) and refusals per op and code.
 */
export interface WsSeriesIncrease {
  readonly ops: readonly { readonly op: string; readonly counts: readonly number[]; readonly sum: number; readonly count: number }[];
  readonly refusals: readonly { readonly op: string; readonly code: string; readonly n: number }[];
}

/** A cluster node's place and lag (src/server/replication/), read at scrape time. */
export interface ReplicationFigures {
  readonly role: 'leader' | 'follower' | 'standby';
  readonly head_seq: number;
  readonly lag_events: number;
  readonly lag_ms: number;
}

/**
 * The sizes of the live state and of what the history holds in this process (docs/operations.md,
 * "Memory"): what memory follows, read at scrape time.
 */
export interface LiveStateFigures {
  readonly restingOrders: number;
  /** Orders the books hold: the resting ones and the window of recently finished ones. */
  readonly ordersKept: number;
  readonly traders: number;
  readonly markets: number;
  /** The history's items held in memory: all of it in memory, what awaits the database with PostgreSQL. */
  readonly historyItems: number;
  readonly historyBackend: 'in_memory' | 'postgres';
}

/** What the rest of the server reports at scrape time. */
export interface ScrapeSources {
  ws(): WsFigures;
  /** Brings ws() and the WebSocket series up to date before a scrape (asks the fan-out child). */
  refresh?(): Promise<void>;
  persistence(): PersistenceStatus;
  headSeq(): number;
  /** null outside cluster mode (no ROLE): the replication series then have no samples. */
  replication(): ReplicationFigures | null;
  live(): LiveStateFigures;
}

const ROLES: readonly ReplicationFigures['role'][] = ['leader', 'follower', 'standby'];

/** One REST route: its latency and its refusals by code. */
export class RouteSeries {
  readonly latency: HistogramCell;
  private readonly refusals = new Map<string, CounterCell>();
  private readonly counter: CellCounter;
  private readonly labels: Readonly<Record<string, string>>;

  constructor(latency: HistogramCell, counter: CellCounter, labels: Readonly<Record<string, string>>) {
    this.latency = latency;
    this.counter = counter;
    this.labels = labels;
  }

  refused(code: string): void {
    let cell = this.refusals.get(code);
    if (cell === undefined) {
      cell = this.counter.cell({ ...this.labels, code });
      this.refusals.set(code, cell);
    }
    cell.inc();
  }
}

/** The process metrics (prom-client defaults, event-loop lag included) exist once per process. */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (processRegistry === null) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 10 });
  }
  return processRegistry;
}

export class ExchangeMetrics {
  readonly registry = new Registry();
  private readonly commands: CellCounter;
  private readonly commandRefusals: CellCounter;
  private readonly httpLatency: CellHistogram;
  private readonly httpRefusals: CellCounter;
  private readonly wsLatency: CellHistogram;
  private readonly wsRefusals: CellCounter;
  private readonly batchSizes: CellHistogram;
  private readonly commitLatency: CellHistogram;
  private readonly accepted = new Map<string, CounterCell>();
  private readonly refusedBy = new Map<string, Map<string, CounterCell>>();
  private readonly wsOps = new Map<string, HistogramCell>();
  private readonly wsRefusedBy = new Map<string, Map<string, CounterCell>>();
  private readonly batchSize: HistogramCell;
  private readonly commit: HistogramCell;
  private sources: ScrapeSources | null = null;

  constructor() {
    processMetrics();
    const r = this.registry;
    this.commands = new CellCounter(r, 'exchange_commands_total', 'Commands the exchange accepted (each became one event), by command type.', ['command']);
    this.commandRefusals = new CellCounter(r, 'exchange_command_refusals_total', 'Commands the exchange refused, by command type and error code.', ['command', 'code']);
    this.httpLatency = new CellHistogram(r, 'exchange_http_request_duration_seconds', 'REST request latency per route (the path template), from routing to the reply.', ['method', 'route'], LATENCY_BUCKETS);
    this.httpRefusals = new CellCounter(r, 'exchange_http_refusals_total', 'REST error replies per route and error code (x-error-code).', ['method', 'route', 'code']);
    this.wsLatency = new CellHistogram(r, 'exchange_ws_message_duration_seconds', 'WebSocket client message handling latency per op, from parsing to the reply being queued.', ['op'], LATENCY_BUCKETS);
    this.wsRefusals = new CellCounter(r, 'exchange_ws_refusals_total', 'WebSocket reject and error frames answering a client message, per op and error code.', ['op', 'code']);
    this.batchSizes = new CellHistogram(r, 'exchange_persistence_batch_events', 'Events per committed batch of the PostgreSQL writer.', [], BATCH_SIZE_BUCKETS);
    this.commitLatency = new CellHistogram(r, 'exchange_persistence_commit_duration_seconds', 'Time to write and commit one batch of the PostgreSQL writer (retries of a batch count separately).', [], COMMIT_BUCKETS);
    this.batchSize = this.batchSizes.cell({});
    this.commit = this.commitLatency.cell({});
    this.scrapeGauges();
  }

  /** Wires the figures read at scrape time (called once the gateway and persistence exist). */
  attach(sources: ScrapeSources): void {
    this.sources = sources;
  }

  commandAccepted(type: string): void {
    let cell = this.accepted.get(type);
    if (cell === undefined) {
      cell = this.commands.cell({ command: type });
      this.accepted.set(type, cell);
    }
    cell.inc();
  }

  commandRefused(type: string, code: string): void {
    nested(this.refusedBy, type, code, () => this.commandRefusals.cell({ command: type, code })).inc();
  }

  /** Resolved once per route when the app mounts it. */
  route(method: string, path: string): RouteSeries {
    const labels = { method: method.toUpperCase(), route: path };
    return new RouteSeries(this.httpLatency.cell(labels), this.httpRefusals, labels);
  }

  wsOp(op: string): HistogramCell {
    let cell = this.wsOps.get(op);
    if (cell === undefined) {
      cell = this.wsLatency.cell({ op });
      this.wsOps.set(op, cell);
    }
    return cell;
  }

  wsRefused(op: string, code: string): void {
    nested(this.wsRefusedBy, op, code, () => this.wsRefusals.cell({ op, code })).inc();
  }

  /** Adds what a gateway in another process recorded since its last report. */
  addWsSeries(increase: WsSeriesIncrease): void {
    for (const o of increase.ops) this.wsOp(o.op).add(o.counts, o.sum, o.count);
    for (const r of increase.refusals) nested(this.wsRefusedBy, r.op, r.code, () => this.wsRefusals.cell({ op: r.op, code: r.code })).value += r.n;
  }

  /** One committed batch of the writer. */
  batchCommitted(events: number, ms: number): void {
    this.batchSize.observe(events);
    this.commit.observe(ms / 1000);
  }

  /** The text exposition: this server's series, then the process's. */
  async text(): Promise<string> {
    await this.sources?.refresh?.();
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }

  private scrapeGauges(): void {
    const r = this.registry;
    const self = this;
    const ws = (pick: (f: WsFigures) => number) =>
      function (this: Gauge) {
        if (self.sources !== null) this.set(pick(self.sources.ws()));
      };
    new Gauge({ name: 'exchange_ws_connections', help: 'Open WebSocket connections.', registers: [r], collect: ws((f) => f.connections) });
    new Gauge({ name: 'exchange_ws_authenticated_connections', help: 'Open WebSocket connections authenticated as a trader.', registers: [r], collect: ws((f) => f.authenticated) });
    new Gauge({ name: 'exchange_ws_subscriptions', help: 'Market subscriptions held by open WebSocket connections.', registers: [r], collect: ws((f) => f.subscriptions) });
    // Counters read from plain fields of the gateway: the fan-out path only adds to a number.
    counterFromTotal(r, 'exchange_ws_frames_sent_total', 'WebSocket frames handed to sockets.', () => self.sources?.ws().framesSent ?? null);
    counterFromTotal(r, 'exchange_ws_lagging_subscriptions_dropped_total', 'Subscriptions dropped because the client lagged (a resync_required frame was sent).', () => self.sources?.ws().lagDrops ?? null);

    const persistence = (pick: (s: PersistenceStatus) => number) =>
      function (this: Gauge) {
        if (self.sources !== null) this.set(pick(self.sources.persistence()));
      };
    new Gauge({
      name: 'exchange_persistence_mode',
      help: 'The persistence writer mode: 1 for the current mode, 0 for the others (disabled means in memory).',
      labelNames: ['mode'],
      registers: [r],
      collect(this: Gauge<'mode'>) {
        if (self.sources === null) return;
        const mode = self.sources.persistence().mode;
        for (const m of PERSISTENCE_MODES) this.set({ mode: m }, m === mode ? 1 : 0);
      },
    });
    new Gauge({ name: 'exchange_persistence_queue_depth', help: 'Events queued for the PostgreSQL writer, not yet in a batch.', registers: [r], collect: persistence((s) => s.queue_depth) });
    new Gauge({ name: 'exchange_persistence_in_flight_events', help: 'Events in the batch being written.', registers: [r], collect: persistence((s) => s.in_flight_ops) });
    new Gauge({ name: 'exchange_persistence_durable_seq', help: 'Seq of the last event committed to PostgreSQL (the head seq when in memory).', registers: [r], collect: persistence((s) => s.durable_seq ?? s.total_enqueued) });
    counterFromTotal(r, 'exchange_persistence_flushes_total', 'Batches the PostgreSQL writer committed.', () => self.sources?.persistence().total_flushes ?? null);
    counterFromTotal(r, 'exchange_persistence_events_enqueued_total', 'Events handed to the persistence writer.', () => self.sources?.persistence().total_enqueued ?? null);
    // A node outside cluster mode (no ROLE) has no role samples, and lags nothing (0).
    const replication = (pick: (f: ReplicationFigures) => number) =>
      function (this: Gauge) {
        const f = self.sources?.replication() ?? null;
        this.set(f === null ? 0 : pick(f));
      };
    new Gauge({
      name: 'exchange_cluster_role',
      help: 'Cluster mode: 1 for this node\'s role (leader, follower, standby), 0 for the others.',
      labelNames: ['role'],
      registers: [r],
      collect(this: Gauge<'role'>) {
        const f = self.sources?.replication() ?? null;
        if (f === null) return;
        for (const role of ROLES) this.set({ role }, role === f.role ? 1 : 0);
      },
    });
    new Gauge({ name: 'exchange_replication_lag_events', help: 'Cluster mode: events the log holds that this node has not folded yet (0 on the leader and outside cluster mode).', registers: [r], collect: replication((f) => f.lag_events) });
    new Gauge({ name: 'exchange_replication_lag_seconds', help: 'Cluster mode: how far behind the log this node\'s state is, in time (0 on the leader and outside cluster mode).', registers: [r], collect: replication((f) => f.lag_ms / 1000) });
    const live = (pick: (f: LiveStateFigures) => number) =>
      function (this: Gauge) {
        if (self.sources !== null) this.set(pick(self.sources.live()));
      };
    new Gauge({ name: 'exchange_live_resting_orders', help: 'Orders resting in the books (live state).', registers: [r], collect: live((f) => f.restingOrders) });
    new Gauge({ name: 'exchange_live_orders_kept', help: `Orders the books hold: the resting ones and the window of recently finished ones (with PostgreSQL at most ${RECENT_ORDERS.toLocaleString('en-US')} more; in memory every order since the last reset).`, registers: [r], collect: live((f) => f.ordersKept) });
    new Gauge({ name: 'exchange_live_traders', help: 'Traders provisioned (live state).', registers: [r], collect: live((f) => f.traders) });
    new Gauge({ name: 'exchange_live_markets', help: 'Markets configured (live state).', registers: [r], collect: live((f) => f.markets) });
    new Gauge({
      name: 'exchange_history_items_in_memory',
      help: 'History items (fills, trades, finished orders, messages) this process holds: all of them with the in-memory backend, those not yet in the database with PostgreSQL.',
      labelNames: ['backend'],
      registers: [r],
      collect(this: Gauge<'backend'>) {
        if (self.sources === null) return;
        const f = self.sources.live();
        this.set({ backend: f.historyBackend }, f.historyItems);
      },
    });
    new Gauge({
      name: 'exchange_log_head_seq',
      help: 'Seq of the last event in the log (applied in memory); minus exchange_persistence_durable_seq it is what is not yet durable.',
      registers: [r],
      collect(this: Gauge) {
        if (self.sources !== null) this.set(self.sources.headSeq());
      },
    });
  }
}

/** A counter whose value is a running total kept elsewhere (a plain field), synced by its increase on each scrape. */
function counterFromTotal(registry: Registry, name: string, help: string, total: () => number | null): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect(this: Counter) {
      const now = total();
      if (now === null || now < reported) return;
      this.inc(now - reported);
      reported = now;
    },
  });
}

function nested(map: Map<string, Map<string, CounterCell>>, outer: string, inner: string, create: () => CounterCell): CounterCell {
  let byInner = map.get(outer);
  if (byInner === undefined) {
    byInner = new Map();
    map.set(outer, byInner);
  }
  let cell = byInner.get(inner);
  if (cell === undefined) {
    cell = create();
    byInner.set(inner, cell);
  }
  return cell;
}
