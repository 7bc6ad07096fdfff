// Every failure the SDK reports is an ExchangeError: the exchange's stable error code, the HTTP status
// that code has (over WebSocket too, from the exchange's registry), and the exchange's text. Failures
// of the client itself use codes of their own, with status 0: `invalid_argument` (refused before
// sending), `timeout` (no answer in time: the outcome is unknown, retry with the same
// client_order_id), `disconnected` (the connection closed before the answer: the outcome is unknown).
import { ERROR_STATUS, type ExchangeErrorCode } from './error-codes.ts';

export type ClientErrorCode = 'invalid_argument' | 'timeout' | 'disconnected' | 'not_connected' | 'protocol';
export type ErrorCode = ExchangeErrorCode | ClientErrorCode;

export class ExchangeError extends Error {
  override readonly name = 'ExchangeError';
  readonly status: number;
  readonly code: ErrorCode | (string & {});
  readonly text: string;
  /** With rate_limit_exceeded over WebSocket: milliseconds until the op would be admitted. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, code: string, text: string, retryAfterMs?: number) {
    super(`${code}${status > 0 ? ` (${status})` : ''}: ${text}`);
    this.status = status;
    this.code = code;
    this.text = text;
    this.retryAfterMs = retryAfterMs;
  }

  /** An error the exchange sent over WebSocket (reject or error frame): its status from the registry. */
  static fromCode(code: string, text: string, retryAfterMs?: number): ExchangeError {
    return new ExchangeError((ERROR_STATUS as Record<string, number>)[code] ?? 0, code, text, retryAfterMs);
  }

  static invalidArgument(text: string): ExchangeError {
    return new ExchangeError(0, 'invalid_argument', text);
  }
}
