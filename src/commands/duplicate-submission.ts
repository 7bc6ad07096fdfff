// A submission that repeats an earlier one: not a refusal (nothing is refused, nothing is appended), so
// not in the error registry (errors.ts); decide throws it with the first order, and the doors answer with
// that order as it is now and its fills (src/server/history/order-lookups.ts).
import type { OrderRecord } from '../projections/books.ts';

/**
 * Not a refusal: a submission that repeats an earlier one with the same client_order_id and the same
 * parameters. Nothing is appended; the caller answers with the earlier order as it is now.
 */
export class DuplicateSubmission extends Error {
  readonly orderId: string;
  /** The first order as decide saw it (from the books, or the history's record the command carried). */
  readonly order: OrderRecord | null;

  constructor(orderId: string, order: OrderRecord | null = null) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`duplicate of order ${orderId}`);
    Error.stackTraceLimit = limit;
    this.name = 'DuplicateSubmission';
    this.orderId = orderId;
    this.order = order;
  }
}
