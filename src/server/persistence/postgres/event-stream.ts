// Streams stored events out of PostgreSQL with COPY ... TO STDOUT: one query, rows arriving as a byte
// stream with no per-row protocol overhead, which is what makes recovery fast on a long log.
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { decodeEventRow, type StoredEvent } from './copy-text.ts';

/** Events with afterSeq < seq <= toSeq (toSeq omitted: to the end), oldest first. */
export async function* streamStoredEvents(pool: pg.Pool, afterSeq: number, toSeq?: number): AsyncGenerator<StoredEvent> {
  if (!Number.isSafeInteger(afterSeq) || (toSeq !== undefined && !Number.isSafeInteger(toSeq))) throw new Error('streamStoredEvents: seq bounds must be integers');
  // COPY takes no parameters; the bounds are integers checked above.
  const upper = toSeq === undefined ? '' : ` and seq <= ${toSeq}`;
  const sql = `copy (select seq, hash, canonical from events where seq > ${afterSeq}${upper} order by seq) to stdout`;
  const client = await pool.connect();
  // A checked-out client has no 'error' listener of the pool's: a connection reset while streaming would
  // otherwise end the process. The reset still fails the COPY stream, which is what the caller sees.
  const ignore = (): void => {};
  client.on('error', ignore);
  let complete = false;
  const stream = client.query(copyTo(sql));
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = rest + decoder.decode(chunk, { stream: true });
      let start = 0;
      let nl = text.indexOf('\n');
      while (nl >= 0) {
        yield decodeEventRow(text.slice(start, nl));
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      rest = text.slice(start);
    }
    rest += decoder.decode();
    if (rest !== '') throw new Error('events: COPY output ended in the middle of a row');
    complete = true;
  } finally {
    // A consumer that stopped early (or an error) leaves the COPY unfinished on this connection: it
    // must not go back to the pool, so it is destroyed instead.
    if (complete) {
      client.off('error', ignore);
      client.release();
    } else {
      // Destroyed, not returned: its listener stays, for whatever the dying connection still reports.
      stream.destroy();
      client.release(true);
    }
  }
}
