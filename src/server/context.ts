import type { TraderBudgets } from './admission/token-bucket.ts';
import type { ClientAddresses } from './client-address/client-addresses.ts';
import type { AdmissionClock } from './clock.ts';
import type { Config } from './config.ts';
import type { History } from './history/history.ts';
import type { KeyUsage } from './keys/key-usage.ts';
import type { Logger } from './logger.ts';
import type { ClusterNode } from './replication/cluster-node.ts';
import type { ExchangeMetrics } from './operations/metrics/exchange-metrics.ts';
import type { PracticeControl } from './practice/practice-control.ts';
import type { ExchangeService } from './service.ts';

/** What the HTTP routes and the WebSocket gateway share. */
export interface ServerContext {
  readonly config: Config;
  readonly service: ExchangeService;
  /** Finished orders, fills, the tape, candles, messages, official standings (src/server/history/). */
  readonly history: History;
  readonly clock: AdmissionClock;
  readonly logger: Logger;
  /** See Persistence.epoch: changes when book sequences could not be continued. */
  readonly epoch: string;
  /** Every trader's request budget, shared by REST and WebSocket (src/server/admission/). */
  readonly budgets: TraderBudgets;
  /** Cluster mode (ROLE set): this node's role, lag and admission. */
  readonly cluster?: ClusterNode;
  /** The Prometheus series (GET /metrics). */
  readonly metrics: ExchangeMetrics;
  /** Whose address a request comes from (TRUST_PROXY): what every per-address rule and log uses. */
  readonly addresses: ClientAddresses;
  /** A practice exchange (npm run practice): the play of its recording, which GET /api/v1/practice shows and steers. */
  readonly practice?: PracticeControl;
  /** When each API key was last used (not in the log: src/server/keys/). */
  readonly keyUsage: KeyUsage;
}
