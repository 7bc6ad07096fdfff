// The leader NOTIFYs this channel inside each batch's transaction, so the notification is delivered
// exactly when (and only if) the batch commits; its payload is the batch's last seq. Followers LISTEN
// on it (src/server/replication/), but never trust the payload alone: they read what the table holds.
export const LOG_CHANNEL = 'exchange_log';

/**
 * A batch's whole transaction as one simple query: it opens, queues the notification (its payload the
 * batch's last seq), copies the rows that follow as COPY data, and commits, so the database answers once.
 * NOTIFY rather than `select pg_notify(...)`: a statement that returns rows would reach the COPY
 * stream, which reads only the COPY's messages.
 */
export function batchTransaction(lastSeq: number, columns: string): string {
  if (!Number.isSafeInteger(lastSeq)) throw new Error('batchTransaction: seq must be an integer');
  return `begin; notify ${LOG_CHANNEL}, '${lastSeq}'; copy events (${columns}) from stdin; commit`;
}
