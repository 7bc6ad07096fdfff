// WS_FANOUT=process, the main process's side: the port stays here, and every upgrade to /ws is handed
// to the fan-out child with its socket; the child answers it and owns the connection from then on (so
// the connection limits and their refusals are the child's, which holds the counts). The host keeps
// one child running: it forks the first as early as it can (it loads while this process recovers its
// state), and if a child dies it logs it, treats it as every connection's disconnect
// (cancel_on_disconnect), and starts another from a fresh snapshot after a backoff; clients reconnect.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerContext } from '../context.ts';
import type { Logger } from '../logger.ts';
import type { WsFigures } from '../operations/metrics/exchange-metrics.ts';
import { refusedPathOrShutdown, refuseRestarting } from '../ws/gateway.ts';
import { LocalDesk } from '../ws/order-desk.ts';
import { FanoutLink, NO_FIGURES, type LinkOwner } from './fanout-link.ts';
import type { WsReport } from './ws-report.ts';

const RESPAWN_MIN_MS = 100;
const RESPAWN_MAX_MS = 5_000;
/** A child that ran this long before it died starts the backoff again from the minimum. */
const STABLE_MS = 30_000;
/** A scrape waits this long for the child's figures, then shows the last ones it had. */
const REPORT_TIMEOUT_MS = 250;

interface Started {
  readonly context: ServerContext;
  readonly desk: LocalDesk;
}

export class FanoutHost implements LinkOwner {
  readonly logger: Logger;
  private link: FanoutLink | null;
  private started: Started | null = null;
  private closing: Promise<void> | null = null;
  private respawnTimer: NodeJS.Timeout | null = null;
  private backoffMs = RESPAWN_MIN_MS;
  /** Counters of children that are gone, so the totals never go back. */
  private retired = { framesSent: 0, lagDrops: 0 };
  private retiredRecords = { trades: 0, syncs: 0 };
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => this.upgrade(req, socket, head);

  /** Forks the first child at once: it loads its modules while this process recovers. */
  constructor(logger: Logger) {
    this.logger = logger;
    this.link = new FanoutLink(this);
  }

  /** Feeds the child and waits until it takes connections; upgrades on `http` go to it from then on. */
  async start(context: ServerContext, http: Server): Promise<void> {
    const desk = new LocalDesk(context);
    this.started = { context, desk };
    const link = this.link ?? new FanoutLink(this);
    this.link = link;
    link.begin(context, desk);
    await link.ready;
    http.on('upgrade', this.onUpgrade);
    this.logger.debug({ pid: link.child.pid }, 'ws fan-out: child ready');
  }

  /** The running child's process id (null between a death and the next start). */
  get pid(): number | null {
    return this.link?.alive === true ? (this.link.child.pid ?? null) : null;
  }

  /** Records the children sent here so far: what reached this process (the tests read it). */
  get received(): { readonly trades: number; readonly syncs: number } {
    return { trades: this.retiredRecords.trades + (this.link?.received.trades ?? 0), syncs: this.retiredRecords.syncs + (this.link?.received.syncs ?? 0) };
  }

  /** What /metrics shows of the WebSocket side: the child's last report, counters summed over children. */
  figures(): WsFigures {
    const f = this.link?.figures ?? NO_FIGURES;
    return { ...f, framesSent: this.retired.framesSent + f.framesSent, lagDrops: this.retired.lagDrops + f.lagDrops };
  }

  /** Brings figures() and the WebSocket series up to date (a scrape is about to read them). */
  refresh(): Promise<void> {
    return this.link?.report(REPORT_TIMEOUT_MS) ?? Promise.resolve();
  }

  reported(_link: FanoutLink, report: WsReport): void {
    this.started?.context.metrics.addWsSeries(report);
  }

  exited(link: FanoutLink, code: number | null, signal: NodeJS.Signals | null, expected: boolean): void {
    if (link !== this.link) return;
    this.link = null;
    this.retired = { framesSent: this.retired.framesSent + link.figures.framesSent, lagDrops: this.retired.lagDrops + link.figures.lagDrops };
    this.retiredRecords = { trades: this.retiredRecords.trades + link.received.trades, syncs: this.retiredRecords.syncs + link.received.syncs };
    const started = this.started;
    if (expected || this.closing !== null || started === null) return;
    this.logger.error({ pid: link.child.pid, code, signal, connections: link.figures.connections }, 'ws fan-out: the child process died; its clients lost their connections; starting another');
    // Every connection of that child dropped: for cancel_on_disconnect that is their disconnect.
    for (const traderId of link.flagged) started.desk.disconnected(traderId);
    if (performance.now() - link.startedAt > STABLE_MS) this.backoffMs = RESPAWN_MIN_MS;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(RESPAWN_MAX_MS, this.backoffMs * 2);
    this.respawnTimer = setTimeout(() => this.respawn(started), delay);
    this.respawnTimer.unref();
  }

  private respawn(started: Started): void {
    this.respawnTimer = null;
    if (this.closing !== null || this.link !== null) return;
    const link = new FanoutLink(this);
    this.link = link;
    link.begin(started.context, started.desk);
    link.ready.then(
      () => this.logger.warn({ pid: link.child.pid, seq: started.context.service.state.seq }, 'ws fan-out: a new child takes connections'),
      () => {},
    );
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (refusedPathOrShutdown(req, socket, this.closing !== null)) return;
    const link = this.link;
    const started = this.started;
    if (link === null || !link.alive || started === null) {
      refuseRestarting(socket);
      return;
    }
    link.handOver(req, socket, head, started.context.addresses.of(req));
  }

  /** Closes every connection and ends the child (the server is shutting down); new upgrades get 503. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.respawnTimer !== null) clearTimeout(this.respawnTimer);
      this.respawnTimer = null;
      await this.link?.close();
    })();
    return this.closing;
  }

  /** Ends the child at once: the server did not start. */
  abort(): Promise<void> {
    this.closing ??= Promise.resolve();
    const link = this.link;
    link?.kill();
    return link?.exited() ?? Promise.resolve();
  }
}
