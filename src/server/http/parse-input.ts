// zod failures as REST errors: a 400 whose text names the field. A field with its own registry code
// (price -> invalid_price, ...) answers with it, so a client sees the same code for a string price as
// for a negative one; anything else is invalid_request (bodies) or invalid_query (query strings).
import type { z } from 'zod';
import { DomainError, type ErrorCode } from '../../commands/errors.ts';

export type InputPlace = 'body' | 'query' | 'path';

const FIELD_CODES: Readonly<Record<string, ErrorCode>> = {
  price: 'invalid_price',
  quantity: 'invalid_quantity',
  market: 'invalid_market',
  remaining: 'invalid_remaining',
  settlement_price: 'invalid_settlement_price',
  username: 'invalid_username',
  tick_size: 'invalid_tick_size',
  min_order_quantity: 'invalid_min_order_quantity',
  reference_price: 'invalid_reference_price',
  type: 'invalid_order_type',
  time_in_force: 'invalid_time_in_force',
  self_trade_prevention: 'invalid_self_trade_prevention',
  client_order_id: 'invalid_client_order_id',
  maker_fee_bps: 'invalid_market_rule',
  taker_fee_bps: 'invalid_market_rule',
  position_limit: 'invalid_market_rule',
  max_open_orders: 'invalid_market_rule',
};

const DEFAULT_CODES: Readonly<Record<InputPlace, ErrorCode>> = { body: 'invalid_request', query: 'invalid_query', path: 'invalid_request' };

/** `markets[2].tick_size` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function issueError(issue: z.core.$ZodIssue, place: InputPlace): DomainError {
  const field = formatPath(issue.path);
  const last = [...issue.path].reverse().find((k) => typeof k === 'string');
  const code = (typeof last === 'string' ? FIELD_CODES[last] : undefined) ?? DEFAULT_CODES[place];
  if (field === '') {
    const what = place === 'body' ? 'request body' : place === 'query' ? 'query string' : 'path';
    return new DomainError(code, issue.code === 'invalid_type' ? `${what} must be a JSON object` : `${what}: ${issue.message}`);
  }
  // Parsed with reportInput, so a missing field is one whose input is undefined (JSON has no undefined).
  if (issue.input === undefined) return new DomainError(code, `${field} is required`);
  const detail = issue.message.replace(/^Invalid input: /, '');
  return new DomainError(code, `${field}: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}`);
}

/** The parsed value, or the DomainError of its first problem (fields are checked in schema order). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, place: InputPlace): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (first === undefined) throw new DomainError(DEFAULT_CODES[place]);
  throw issueError(first, place);
}
