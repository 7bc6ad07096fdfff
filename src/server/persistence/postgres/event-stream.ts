// Streams stored events out of PostgreSQL with COPY ... TO STDOUT: one query, rows arriving as a byte
// stream with no per-row protocol overhead, which is what makes recovery fast on a long log.
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { decodeEventRow, type StoredEvent } from './copy-text.ts';

/**
 * The raw COPY text of the events with afterSeq < seq <= toSeq (toSeq omitted: to the end), oldest
 * first, one row `seq\thash\tcanonical\n` per event, in chunks as they arrive (rows span chunks).
 */
export async function* streamEventBytes(pool: pg.Pool, afterSeq: number, toSeq?: number): AsyncGenerator<Buffer> {
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
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
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

/** Splits COPY text into rows (the newline dropped); the text must end with a whole row. */
export function* copyRows(text: string): Generator<string> {
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    yield text.slice(start, nl);
    start = nl + 1;
  }
  if (start < text.length) yield text.slice(start);
}

/** Events with afterSeq < seq <= toSeq (toSeq omitted: to the end), oldest first. */
export async function* streamStoredEvents(pool: pg.Pool, afterSeq: number, toSeq?: number): AsyncGenerator<StoredEvent> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  for await (const chunk of streamEventBytes(pool, afterSeq, toSeq)) {
    const text = rest + decoder.decode(chunk, { stream: true });
    const end = text.lastIndexOf('\n') + 1;
    for (const line of copyRows(text.slice(0, end))) yield decodeEventRow(line);
    rest = text.slice(end);
  }
  rest += decoder.decode();
  if (rest !== '') throw new Error('events: COPY output ended in the middle of a row');
}
