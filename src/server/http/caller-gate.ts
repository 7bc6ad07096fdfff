// What every route runs first, before it reads anything of the request but its head: in cluster mode
// the leader check of a route that changes state (503 not_leader before authentication), then the
// caller's credentials and, on a route that trades, the key's scope, then, on trader routes, the
// trader's budget with its x-ratelimit-* headers. So a refused request (503, 401, 403, 429) never reads
// its body. Shared by the express mount and the fast path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, rateLimitText } from '../../commands/errors.ts';
import type { ServerContext } from '../context.ts';
import { AdminGuard, TraderAuthenticator } from './authenticate.ts';
import type { AnyRoute, Call } from './route.ts';

/** The authenticated caller on trader routes (trader and key), nulls elsewhere: those fields of a Call. */
export type Caller = Pick<Call<unknown, unknown, unknown>, 'trader' | 'apiKey' | 'key'>;

const NOBODY: Caller = Object.freeze({ trader: null, apiKey: null, key: null });

export class CallerGate {
  private readonly context: ServerContext;
  private readonly traders: TraderAuthenticator;
  private readonly admin: AdminGuard;
  private readonly limitHeader: string;

  constructor(context: ServerContext) {
    const { config, logger } = context;
    this.context = context;
    this.traders = new TraderAuthenticator(context.service.state, context.keyUsage);
    this.admin = new AdminGuard(config.adminToken, context.addresses, config.limits.admin_auth_failures_per_minute, logger);
    this.limitHeader = String(config.perUserRequestsPerSecond);
  }

  /** Throws the refusal; otherwise the caller. */
  check(route: AnyRoute, req: IncomingMessage, res: ServerResponse): Caller {
    // Cluster mode: every route that changes state is the leader's alone (refused before anything else).
    if (route.method !== 'get') {
      const refused = this.context.service.refusal();
      if (refused !== null) throw refused;
    }
    if (route.access === 'admin') {
      this.admin.check(req);
      return NOBODY;
    }
    if (route.access !== 'trader') return NOBODY;
    const caller = this.traders.authenticate(req);
    // A read key's request to a route that trades is refused before it costs the trader's budget.
    if (route.scope === 'trade' && caller.key.scope !== 'trade') throw new DomainError('insufficient_scope');
    const traderId = caller.trader.trader_id;
    if (route.rateLimited === true) {
      const decision = this.context.budgets.take(traderId);
      res.setHeader('x-ratelimit-limit', this.limitHeader);
      res.setHeader('x-ratelimit-remaining', String(decision.remaining));
      if (!decision.allowed) {
        res.setHeader('retry-after', String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))));
        throw new DomainError('rate_limited', rateLimitText(this.context.config.perUserRequestsPerSecond));
      }
    }
    return caller;
  }
}
