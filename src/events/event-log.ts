import type { ExchangeEvent } from './types.ts';

/**
 * The append-only log behind the exchange. `append` is called once per accepted command, in seq order,
 * on the single decide thread, and must not block: durable implementations queue the event and write
 * it in the background (their status and flushing live in the server layer, not here).
 */
export interface EventLog {
  /** The seq of the newest event held (0 when empty). */
  readonly headSeq: number;
  append(event: ExchangeEvent): void;
}
