// What the WebSocket code needs of the server around it. The in-process gateway gets the whole
// ServerContext; the fan-out child (src/server/fanout/) builds one over its own folded state, whose
// series it reports to the main process at scrape time.
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { ExchangeService } from '../service.ts';

/** The WebSocket series a gateway records into (ExchangeMetrics, or the child's recorder). */
export interface WsSeries {
  /** The latency cell of one op, resolved once per op. */
  wsOp(op: string): { observeSince(startedMs: number): void };
  wsRefused(op: string, code: string): void;
}

export interface WsContext {
  readonly config: Config;
  /** The service whose state and publications the gateway serves. */
  readonly service: ExchangeService;
  readonly logger: Logger;
  /** See Persistence.epoch: changes when book sequences could not be continued. */
  readonly epoch: string;
  readonly metrics: WsSeries;
}
