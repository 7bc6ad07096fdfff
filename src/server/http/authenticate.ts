// Credentials. Traders present their API key in x-api-key; only its SHA-256 is known to the state, so
// the lookup is by hash. The admin token is compared in constant time over equal-length digests, so
// neither the content nor the length of the configured token leaks through response timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../commands/errors.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import type { TraderView } from '../../projections/views.ts';
import { FailureWindow } from '../admission/failure-window.ts';
import type { ClientAddresses } from '../client-address/client-addresses.ts';
import { hashApiKey } from '../clock.ts';
import type { Logger } from '../logger.ts';

export interface AuthenticatedTrader {
  readonly trader: TraderView;
  /** The key as presented, echoed by GET /api/v1/user (the state only knows its hash). */
  readonly apiKey: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Keys already verified, so the order path hashes a key once rather than per request. A trader's record
 * is replaced whenever its key is rotated or it is disabled or enabled, so a cached entry is trusted only
 * while it is still the trader's current record (one map lookup); otherwise the key is hashed and looked
 * up again, which refuses a rotated key at once. The map is bounded so a flood of distinct valid keys
 * cannot grow it without end. Only keys that matched a trader are kept: a wrong key is hashed every time.
 */
export class TraderAuthenticator {
  private readonly state: ExchangeState;
  private readonly verified = new Map<string, TraderView>();
  private readonly capacity: number;

  constructor(state: ExchangeState, capacity = 100_000) {
    this.state = state;
    this.capacity = capacity;
  }

  authenticate(req: IncomingMessage): AuthenticatedTrader {
    const apiKey = header(req, 'x-api-key')?.trim();
    if (apiKey === undefined || apiKey === '') throw new DomainError('missing_api_key');
    let trader = this.verified.get(apiKey);
    if (trader === undefined || this.state.traders.get(trader.trader_id) !== trader) {
      if (trader !== undefined) this.verified.delete(apiKey);
      trader = this.state.traders.byApiKeyHash(hashApiKey(apiKey));
      if (trader === undefined) throw new DomainError('invalid_api_key');
      if (this.verified.size >= this.capacity) this.verified.clear();
      this.verified.set(apiKey, trader);
    }
    if (trader.disabled === true) throw new DomainError('unauthenticated', 'trader is disabled');
    return { trader, apiKey };
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A refusal that asks the client to wait: the route answers with a retry-after header. */
export class LockedOut extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterMs: number) {
    super('too_many_auth_failures');
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  }
}

/**
 * The admin token check, with a brake on guessing: a client address (ClientAddresses: behind a trusted
 * proxy, the client's, not the proxy's) that presented a wrong Bearer token `failuresPerMinute` times
 * in the last minute gets 429 on every admin route (the right token included, so the answer tells
 * nothing) until the oldest failure is a minute old. A missing or non-Bearer header is not a guess and
 * is not counted. Failures are logged with the address, never with the value presented.
 */
export class AdminGuard {
  private readonly expected: Buffer;
  private readonly failures: FailureWindow;
  private readonly logger: Logger | null;
  private readonly addresses: ClientAddresses;

  constructor(adminToken: string, addresses: ClientAddresses, failuresPerMinute = Number.MAX_SAFE_INTEGER, logger: Logger | null = null, now?: () => number) {
    this.expected = digest(adminToken);
    this.addresses = addresses;
    this.failures = new FailureWindow(failuresPerMinute, 60_000, now);
    this.logger = logger;
  }

  check(req: IncomingMessage): void {
    const address = this.addresses.of(req);
    const locked = this.failures.lockedFor(address);
    if (locked > 0) throw new LockedOut(locked);
    const authorization = header(req, 'authorization')?.trim();
    if (authorization === undefined || authorization === '') throw new DomainError('missing_admin_token');
    const match = /^Bearer\s+(.+)$/i.exec(authorization);
    if (match === null) throw new DomainError('invalid_admin_token', 'invalid admin token: expected Authorization: Bearer <token>');
    if (!timingSafeEqual(digest((match[1] as string).trim()), this.expected)) {
      const count = this.failures.record(address);
      this.logger?.warn({ address, method: req.method, path: (req.url ?? '').split('?', 1)[0], failures_in_last_minute: count, limit: this.failures.limit }, 'wrong admin token');
      throw new DomainError('invalid_admin_token');
    }
  }
}
