// Credentials. Traders present their API key in x-api-key; only its SHA-256 is known to the state, so
// the lookup is by hash. The admin token is compared in constant time over equal-length digests, so
// neither the content nor the length of the configured token leaks through response timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../commands/errors.ts';
import type { KeyRecord } from '../../projections/api-keys.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import type { TraderView } from '../../projections/views.ts';
import { FailureWindow } from '../admission/failure-window.ts';
import type { ClientAddresses } from '../client-address/client-addresses.ts';
import { hashApiKey } from '../clock.ts';
import type { KeyUsage } from '../keys/key-usage.ts';
import type { Logger } from '../logger.ts';
import { expiresAtMs } from '../keys/key-expiry.ts';

export interface AuthenticatedTrader {
  readonly trader: TraderView;
  /** The key as presented, echoed by GET /api/v1/user (the state only knows its hash). */
  readonly apiKey: string;
  /** The key's record: its id and scope (competition-rules.md, "Keys"). */
  readonly key: KeyRecord;
}

/** A key verified once: its trader's record and its own, as they were then, and when it expires. */
interface Verified {
  readonly hash: string;
  readonly trader: TraderView;
  readonly key: KeyRecord;
  readonly expiresMs: number;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Keys already verified, so the order path hashes a key once rather than per request. A trader's record
 * is replaced whenever its primary key is rotated or it is disabled or enabled, and a key's record
 * leaves the state when it is revoked or rotated away, so a cached entry is trusted only while both are
 * still the current ones (two map lookups); otherwise the key is hashed and looked up again, which
 * refuses a rotated or revoked key at once. A key past its expires_at is refused as an unknown one is.
 * The map is bounded so a flood of distinct valid keys cannot grow it without end. Only keys that
 * matched a trader are kept: a wrong key is hashed every time. Every use is told to `usage`.
 */
export class TraderAuthenticator {
  private readonly state: ExchangeState;
  private readonly usage: KeyUsage;
  private readonly verified = new Map<string, Verified>();
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(state: ExchangeState, usage: KeyUsage, capacity = 100_000, now: () => number = Date.now) {
    this.state = state;
    this.usage = usage;
    this.capacity = capacity;
    this.now = now;
  }

  authenticate(req: IncomingMessage): AuthenticatedTrader {
    const apiKey = header(req, 'x-api-key')?.trim();
    if (apiKey === undefined || apiKey === '') throw new DomainError('missing_api_key');
    let found = this.verified.get(apiKey);
    if (found === undefined || this.state.traders.get(found.trader.trader_id) !== found.trader || this.state.keys.byApiKeyHash(found.hash) !== found.key) {
      if (found !== undefined) this.verified.delete(apiKey);
      const hash = hashApiKey(apiKey);
      const key = this.state.keys.byApiKeyHash(hash);
      const trader = key === undefined ? undefined : this.state.traders.get(key.trader_id);
      if (key === undefined || trader === undefined) throw new DomainError('invalid_api_key');
      found = { hash, trader, key, expiresMs: expiresAtMs(key) };
      if (this.verified.size >= this.capacity) this.verified.clear();
      this.verified.set(apiKey, found);
    }
    if (this.now() >= found.expiresMs) throw new DomainError('invalid_api_key');
    if (found.trader.disabled === true) throw new DomainError('unauthenticated', 'trader is disabled');
    this.usage.touch(found.key.key_id);
    return { trader: found.trader, apiKey, key: found.key };
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
