// The composition root: persistence, recovery, the exchange, the HTTP API and the WebSocket gateway
// on one port. Tests start it on an ephemeral port (BIND_ADDR 127.0.0.1:0) and close it afterwards.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Exchange } from '../commands/exchange.ts';
import { TraderBudgets } from './admission/token-bucket.ts';
import { ClientAddresses } from './client-address/client-addresses.ts';
import { readProxyHeaders, type ProxyHeaderReader } from './client-address/proxy-protocol-reader.ts';
import { AdmissionClock } from './clock.ts';
import { DEFAULT_ADMIN_TOKEN, type Config } from './config.ts';
import type { ServerContext } from './context.ts';
import { createHttpApp } from './http/app.ts';
import { withDashboard } from './http-static.ts';
import { createLogger, type Logger } from './logger.ts';
import type { ClusterNode } from './replication/cluster-node.ts';
import { InMemoryPersistence } from './persistence/in-memory.ts';
import type { Persistence } from './persistence/persistence.ts';
import type { PracticeControl } from './practice/practice-control.ts';
import { ScheduleRunner } from './operations/schedule-runner.ts';
import { ExchangeMetrics } from './operations/metrics/exchange-metrics.ts';
import { startMetricsListener, type MetricsListener } from './operations/metrics/metrics-listener.ts';
import { ExchangeService } from './service.ts';
import { KeyUsage } from './keys/key-usage.ts';
import type { PostgresKeyUsage } from './keys/postgres-key-usage.ts';
import type { FanoutHost } from './fanout/fanout-host.ts';
import { WsGateway } from './ws/gateway.ts';

export interface RunningServer {
  readonly url: string;
  readonly wsUrl: string;
  readonly port: number;
  readonly context: ServerContext;
  readonly http: Server;
  /** The METRICS_BIND_ADDR listener's URL (…/metrics), null when metrics are served on the main port only. */
  readonly metricsUrl: string | null;
  /** WS_FANOUT=process: the fan-out child's keeper (null inline). */
  readonly fanout: FanoutHost | null;
  /** Graceful: stop accepting, finish requests in flight, flush persistence. */
  close(): Promise<void>;
}

async function openPersistence(config: Config, logger: Logger): Promise<Persistence> {
  if (config.storageBackend === 'in_memory') return new InMemoryPersistence();
  if (config.role !== 'leader') {
    // A follower or standby reads the log and never writes it (no lock, no migration).
    const { openReplicaPersistence } = await import('./replication/cluster-node.ts');
    return openReplicaPersistence(config, logger);
  }
  const { openPostgresPersistence } = await import('./persistence/postgres/postgres-persistence.ts');
  return openPostgresPersistence(config, logger);
}

export interface StartOptions {
  /**
   * Cluster mode: the node can no longer serve a state it can vouch for (a follower's log broke, a
   * leader lost the writer lock to another node). main.ts ends the process; by default the server
   * closes.
   */
  readonly onFatal?: (err: Error) => void;
  /** false: the trader routes go through the express mount too (tests compare it with the fast path). */
  readonly httpFastPath?: boolean;
  /** Called as `exchange listening` is logged: from then on the server takes requests (main.ts's signals). */
  readonly onListening?: () => void;
  /**
   * The clock that stamps every command (default: the admission clock, the wall clock's time); a practice
   * exchange gives its simulated clock (src/server/practice/simulated-clock.ts).
   */
  readonly clock?: AdmissionClock;
  /**
   * The persistence to use instead of the one the configuration names: a practice exchange's is in memory,
   * and its recovery folds the recording up to the start of the played part (practice/).
   */
  readonly persistence?: Persistence;
  /** Run the operator's schedule (default true). A practice exchange plays the recorded schedule's actions at their recorded times instead. */
  readonly runSchedule?: boolean;
  /** A practice exchange's play, shown and steered by GET /api/v1/practice and its routes. */
  readonly practice?: PracticeControl;
}

export async function startServer(config: Config, logger: Logger = createLogger(config.logLevel), options: StartOptions = {}): Promise<RunningServer> {
  if (config.adminToken === DEFAULT_ADMIN_TOKEN) {
    logger.warn('ADMIN_API_TOKEN is the well-known default; set a strong secret before anyone else can reach this service');
  }
  // WS_FANOUT=process: the fan-out child is forked first, so it loads while this process recovers.
  const fanout = config.wsFanout === 'process' ? new (await import('./fanout/fanout-host.ts')).FanoutHost(logger) : null;
  let persistence: Persistence;
  try {
    persistence = options.persistence ?? (await openPersistence(config, logger));
  } catch (err) {
    await fanout?.abort();
    throw err;
  }
  // With the fan-out child this process builds no deltas (nobody here routes them, and the child keeps
  // the rings of its own); the book sequences are state and are still counted.
  // In memory the history is in the process anyway: the books keep every order flat, and the history no
  // record of them (a third of the memory; docs/operations.md, "Sizing").
  const recentOrders = persistence.backend === 'in_memory' ? Number.POSITIVE_INFINITY : undefined;
  const exchange = new Exchange({ log: persistence.log, deltaRing: fanout === null ? Math.max(config.wsBroadcastBuffer, 1024) : 0, ...(recentOrders === undefined ? {} : { recentOrders }) });
  const startedRecovery = performance.now();
  try {
    await persistence.recover(exchange);
  } catch (err) {
    await fanout?.abort();
    await persistence.close().catch(() => {});
    throw err;
  }
  const clock = options.clock ?? new AdmissionClock();
  if (exchange.state.time !== '') clock.advanceTo(exchange.state.time);
  logger.info({ seq: exchange.seq, ms: Math.round(performance.now() - startedRecovery), backend: persistence.backend }, 'state recovered');

  let cluster: ClusterNode | null = null;
  let fatal = (err: Error): void => {
    logger.fatal({ err: err.message }, 'stopping');
  };
  if (config.clustered) {
    const { ClusterNode } = await import('./replication/cluster-node.ts');
    cluster = new ClusterNode({ config, logger, exchange, persistence, clock, onFatal: (err) => fatal(err) });
  }
  const durableAcks = config.storageBackend === 'postgres' && config.postgresDurableAcks;
  const queuePerTrader = config.limits.admission_queue_per_trader;
  const metrics = new ExchangeMetrics();
  persistence.observeFlushes?.((events, ms) => metrics.batchCommitted(events, ms));
  const feeds = fanout === null;
  const service = new ExchangeService(exchange, persistence, clock, cluster === null ? { durableAcks, queuePerTrader, observer: metrics, feeds } : { durableAcks, queuePerTrader, observer: metrics, feeds, admission: cluster.leadership });
  const budgets = new TraderBudgets(config.limits.per_user_requests_per_second, config.limits.per_user_burst);
  const addresses = new ClientAddresses(config.trustProxy);
  // When each key was last used: not in the log (src/server/keys/); with PostgreSQL read back from its
  // table and, by the node that writes the log, written there every few seconds.
  const keyUsage = new KeyUsage();
  let keyUsageStore: PostgresKeyUsage | null = null;
  if (persistence.backend === 'postgres') {
    const { PostgresKeyUsage } = await import('./keys/postgres-key-usage.ts');
    keyUsageStore = new PostgresKeyUsage(config.databaseUrl, keyUsage, logger, config.role === 'leader');
    await keyUsageStore.load();
    keyUsageStore.start();
  }
  const context: ServerContext = {
    config,
    service,
    history: persistence.history,
    clock,
    logger,
    epoch: persistence.epoch,
    budgets,
    metrics,
    addresses,
    keyUsage,
    ...(cluster === null ? {} : { cluster }),
    ...(options.practice === undefined ? {} : { practice: options.practice }),
  };
  const app = createHttpApp(context, { fastPath: options.httpFastPath !== false });
  // The dashboard (dist/web) is served at / and /assets/*; everything else is the API's.
  const limits = config.limits;
  const http = createServer(
    {
      // Sized for an API: a request head arrives in well under a second from any real client, so a
      // client dribbling its headers (slowloris) is cut off after HTTP_HEADERS_TIMEOUT_MS; the timers
      // are checked often enough for that to hold within a fraction of the timeout.
      headersTimeout: limits.http_headers_timeout_ms,
      requestTimeout: limits.http_request_timeout_ms,
      keepAliveTimeout: limits.http_keep_alive_timeout_ms,
      maxHeaderSize: limits.http_max_header_bytes,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.http_headers_timeout_ms / 4))),
    },
    withDashboard(app),
  );
  http.on('clientError', answerClientError);
  // PROXY_PROTOCOL: a trusted proxy's connection gives its header before the HTTP server reads it.
  const proxyHeaders: ProxyHeaderReader | null = config.proxyProtocol ? readProxyHeaders(http, (peer) => addresses.trusts(peer), limits.http_headers_timeout_ms, logger) : null;
  const ws = fanout ?? new WsGateway(context, http);
  if (fanout !== null) {
    try {
      await fanout.start(context, http);
    } catch (err) {
      await fanout.abort();
      await keyUsageStore?.close().catch(() => {});
      await persistence.close().catch(() => {});
      throw err;
    }
  }
  const schedule = options.runSchedule === false ? null : new ScheduleRunner(service, logger);
  metrics.attach({
    ws: () => ws.figures(),
    refresh: () => fanout?.refresh() ?? Promise.resolve(),
    persistence: () => persistence.status(),
    headSeq: () => exchange.seq,
    replication: () => cluster?.health() ?? null,
    live: () => {
      const state = exchange.state;
      const history = persistence.history.figures();
      return { restingOrders: state.books.restingCount, ordersKept: state.books.orders.count, traders: state.traders.count, markets: state.markets.list().length, historyItems: history.cachedItems, historyBackend: history.backend };
    },
  });

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(config.port, config.host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // The port is taken (or not ours): nothing may be left running, the fan-out child included.
    await ws.close();
    await keyUsageStore?.close().catch(() => {});
    await persistence.close().catch(() => {});
    throw err;
  }
  const port = (http.address() as AddressInfo).port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ port, host: config.host, backend: persistence.backend }, 'exchange listening');
  options.onListening?.();
  let metricsListener: MetricsListener | null = null;
  if (config.metricsBind !== null) {
    try {
      metricsListener = await startMetricsListener(metrics, config.metricsBind.host, config.metricsBind.port, logger);
    } catch (err) {
      await ws.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await keyUsageStore?.close().catch(() => {});
      await persistence.close();
      throw err;
    }
  }

  // Entries already due (the server was down when their time came) run now, in order.
  schedule?.start();
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      schedule?.stop();
      service.close();
      await cluster?.close();
      await metricsListener?.close();
      // Every WebSocket connection ends (in the fan-out child, the child with them) and the HTTP server
      // finishes its requests, side by side; only then does persistence close.
      await Promise.all([
        ws.close(),
        new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeIdleConnections();
          proxyHeaders?.close();
        }),
      ]);
      await keyUsageStore?.close().catch((err: unknown) => logger.warn({ err }, 'api key usage: not closed cleanly'));
      await persistence.close();
      logger.info({ seq: exchange.seq }, 'exchange stopped');
    })();
    return closing;
  };

  fatal = (err: Error): void => {
    logger.fatal({ err: err.message, seq: exchange.seq }, 'cluster: this node cannot go on serving; stopping');
    if (options.onFatal !== undefined) options.onFatal(err);
    else void close();
  };
  cluster?.start(service);

  return { url: `http://${shownHost}:${port}`, wsUrl: `ws://${shownHost}:${port}/ws`, port, context, http, metricsUrl: metricsListener?.url ?? null, fanout, close };
}

/**
 * A request Node cannot even parse (oversized headers, a broken request line) never reaches express;
 * it still gets the API's JSON error shape instead of Node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = tooLarge ? '431 Request Header Fields Too Large' : timedOut ? '408 Request Timeout' : '400 Bad Request';
  const body = JSON.stringify({ error: tooLarge ? 'request headers too large' : timedOut ? 'request not received in time' : 'malformed HTTP request' });
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\nx-error-code: ${timedOut ? 'request_timeout' : 'invalid_request'}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
