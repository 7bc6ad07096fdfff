// The leader NOTIFYs this channel inside each batch's transaction, so the notification is delivered
// exactly when (and only if) the batch commits; its payload is the batch's last seq. Followers LISTEN
// on it (src/server/replication/), but never trust the payload alone: they read what the table holds.
export const LOG_CHANNEL = 'exchange_log';

/** The statement that opens a batch's transaction and queues its notification, in one round trip. */
export function beginWithNotify(lastSeq: number): string {
  if (!Number.isSafeInteger(lastSeq)) throw new Error('beginWithNotify: seq must be an integer');
  return `begin; select pg_notify('${LOG_CHANNEL}', '${lastSeq}')`;
}
