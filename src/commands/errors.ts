// The one registry of every error the service can answer with. Each entry has a stable machine code
// (sent as `x-error-code` over REST and as `code` over WebSocket), an HTTP status and a default text.
// Texts that the specification fixes word for word are produced by the factories below it.

export const ERRORS = {
  // Admission of orders, in the specification's order of checks.
  trading_disabled: { status: 409, message: 'trading is disabled' },
  invalid_market: { status: 400, message: 'invalid market symbol: expected BASE-QUOTE' },
  market_not_configured: { status: 404, message: 'market not configured' },
  market_disabled: { status: 409, message: 'market is disabled' },
  market_settled: { status: 409, message: 'market is settled' },
  invalid_price: { status: 400, message: 'price must be an integer between 1 and 9007199254740991' },
  tick_size_violation: { status: 400, message: 'price is not a multiple of the tick size' },
  invalid_quantity: { status: 400, message: 'quantity must be an integer between 1 and 9007199254740991' },
  quantity_below_minimum: { status: 400, message: 'quantity is below the minimum order quantity' },
  position_limit_exceeded: { status: 409, message: 'projected net position would exceed the limit of +/-1000' },
  overflow: { status: 500, message: 'numeric overflow' },
  // Trading extensions (trading-extensions.md), word for word.
  invalid_order_type: { status: 400, message: 'type must be LIMIT or MARKET' },
  invalid_time_in_force: { status: 400, message: 'time_in_force must be GTC, IOC, FOK or POST_ONLY' },
  invalid_self_trade_prevention: { status: 400, message: 'self_trade_prevention must be NONE, CANCEL_TAKER, CANCEL_MAKER or CANCEL_BOTH' },
  invalid_client_order_id: { status: 400, message: 'client_order_id must be 1 to 64 characters of A-Z a-z 0-9 . _ : -' },
  duplicate_client_order_id: { status: 409, message: 'client_order_id already used' },
  no_liquidity: { status: 409, message: 'no liquidity' },
  post_only_would_take: { status: 409, message: 'post-only order would take liquidity' },
  invalid_limit: { status: 400, message: 'invalid limit' },
  invalid_cursor: { status: 400, message: 'invalid cursor' },
  invalid_range: { status: 400, message: 'invalid candle range' },
  // Competition rules (competition-rules.md), word for word.
  too_many_open_orders: { status: 409, message: 'too many open orders' },
  invalid_market_rule: { status: 400, message: 'invalid market rule' },
  insufficient_scope: { status: 403, message: 'key may only read' },
  key_not_found: { status: 404, message: 'key not found' },
  too_many_keys: { status: 409, message: 'too many keys: revoke one first' },
  invalid_key_label: { status: 400, message: 'label must be at most 64 characters without control characters' },
  invalid_expires_at: { status: 400, message: 'expires_at must be an RFC 3339 time in the future' },

  // Amend and cancel.
  invalid_remaining: { status: 400, message: 'remaining must be an integer greater than 0' },
  invalid_amend: { status: 400, message: 'amend can only reduce remaining' },
  order_not_found: { status: 404, message: 'order not found' },
  order_not_owned: { status: 403, message: 'order belongs to another trader' },

  // Authentication and limits.
  missing_api_key: { status: 401, message: 'missing x-api-key header' },
  invalid_api_key: { status: 401, message: 'invalid API key' },
  missing_admin_token: { status: 401, message: 'missing Authorization header' },
  invalid_admin_token: { status: 401, message: 'invalid admin token' },
  unauthenticated: { status: 401, message: 'authenticate before trading' },
  rate_limited: { status: 429, message: 'per-user rate limit exceeded: max 100 ops/sec' },
  // Fair access (docs/api.md, docs/websocket.md: "Limits").
  rate_limit_exceeded: { status: 429, message: 'per-user rate limit exceeded: max 100 ops/sec' },
  admission_queue_full: { status: 503, message: 'too many of your commands are waiting for the engine; retry shortly' },
  too_many_auth_failures: { status: 429, message: 'too many failed admin authentication attempts from this address; retry later' },
  too_many_connections: { status: 429, message: 'too many WebSocket connections' },
  connection_capacity_reached: { status: 503, message: 'the server holds its maximum of WebSocket connections; retry later' },
  snapshot_rate_limited: { status: 429, message: 'too many snapshots requested on this connection; retry shortly' },
  cors_origin_not_allowed: { status: 403, message: 'origin not allowed' },
  request_timeout: { status: 408, message: 'request not received in time' },

  // Operators.
  invalid_username: { status: 400, message: 'username is required' },
  username_taken: { status: 409, message: 'username already exists' },
  user_not_found: { status: 404, message: 'target user not found' },
  invalid_market_definition: { status: 400, message: 'invalid market definition' },
  invalid_tick_size: { status: 400, message: 'tick_size must be an integer greater than 0' },
  invalid_min_order_quantity: { status: 400, message: 'min_order_quantity must be an integer greater than 0' },
  invalid_reference_price: { status: 400, message: 'reference_price must be null or an integer greater than 0' },
  invalid_settlement_price: { status: 400, message: 'settlement_price must be an integer greater than 0' },
  market_has_open_orders: { status: 409, message: 'cannot delete market with open orders' },
  invalid_message_body: { status: 400, message: 'message body must not be empty' },
  invalid_query: { status: 400, message: 'invalid query parameter' },
  // Running a competition (docs/api.md).
  trader_not_found: { status: 404, message: 'trader not found' },
  trader_disabled: { status: 409, message: 'trader is already disabled' },
  trader_not_disabled: { status: 409, message: 'trader is not disabled' },
  too_many_rows: { status: 400, message: 'at most 10000 usernames per request' },
  invalid_csv: { status: 400, message: 'malformed CSV' },
  invalid_schedule: { status: 400, message: 'invalid schedule' },
  schedule_entry_not_pending: { status: 409, message: 'schedule entry is not pending' },
  schedule_entry_not_due: { status: 409, message: 'schedule entry is not due yet' },
  invalid_label: { status: 400, message: 'label must be 1 to 128 characters without control characters' },
  label_taken: { status: 409, message: 'label was already used' },
  official_not_found: { status: 404, message: 'no frozen standings with that label' },
  // Practice rounds (docs/practice.md).
  not_practice: { status: 404, message: 'this exchange is not a practice exchange (npm run practice starts one)' },
  practice_finished: { status: 409, message: 'the recording has played to its end' },

  // Transport.
  invalid_request: { status: 400, message: 'invalid request body' },
  body_too_large: { status: 413, message: 'request body larger than 64 KiB' },
  not_found: { status: 404, message: 'no such route' },
  method_not_allowed: { status: 405, message: 'method not allowed' },
  service_unavailable: { status: 503, message: 'service is shutting down' },
  // The history (finished orders, fills, the tape, candles, messages) lives in the database with
  // STORAGE_BACKEND=postgres: while it cannot be reached, what only it can answer is refused (retry).
  history_unavailable: { status: 503, message: 'the history is not reachable right now (the database is away); retry shortly' },
  // Cluster mode (src/server/replication/): a follower or standby, or a leader that lost its database session.
  not_leader: { status: 503, message: 'this node is not the leader: send commands to the leader' },
  internal: { status: 500, message: 'internal error' },

  // WebSocket protocol errors (sent as {type:"error"}).
  invalid_message: { status: 400, message: 'invalid message' },
  unsupported_channel: { status: 400, message: 'unsupported channel' },
  standings_not_public: { status: 403, message: 'live standings are not public; the organizer has not enabled them' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** A refusal the service answers with on purpose: never a bug, always one registry entry. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message?: string) {
    // A refusal is an answer, not a bug: capturing a stack trace for it would cost more than deciding
    // the command, and nobody reads it.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? ERRORS[code].message);
    Error.stackTraceLimit = limit;
    this.name = 'DomainError';
    this.code = code;
    this.status = ERRORS[code].status;
  }
}

export function fail(code: ErrorCode, message?: string): never {
  throw new DomainError(code, message);
}

/**
 * A refusal as a value. The trading commands are decided millions of times and refused often (a cancel
 * of an order that just filled): throwing costs more than deciding, so their decide functions return
 * one of these, and Exchange.execute turns it into the DomainError its callers catch.
 */
export class Refusal {
  readonly code: ErrorCode;
  readonly message: string;
  /** The error it came from, when it was thrown (the rarer commands still throw). */
  private readonly thrown: DomainError | null;

  constructor(code: ErrorCode, message: string, thrown: DomainError | null = null) {
    this.code = code;
    this.message = message;
    this.thrown = thrown;
  }

  static of(err: DomainError): Refusal {
    return new Refusal(err.code, err.message, err);
  }

  error(): DomainError {
    return this.thrown ?? new DomainError(this.code, this.message);
  }
}

export function refuse(code: ErrorCode, message?: string): Refusal {
  return new Refusal(code, message ?? ERRORS[code].message);
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

// Texts the specification fixes word for word.
export function positionLimitText(market: string, projected: number, limit = 1000): string {
  return `projected net position for ${market} would be ${projected}; limit is +/-${limit}`;
}

export function tooManyOpenOrdersText(max: number, market: string): string {
  return `too many open orders: max ${max} in ${market}`;
}

export function rateLimitText(perSecond: number): string {
  return `per-user rate limit exceeded: max ${perSecond} ops/sec`;
}
