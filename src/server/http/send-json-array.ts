// A JSON array written as it comes, batch by batch: a list with no bound on its length (a trader's every
// fill since the last reset) is never one string in the process (V8 refuses a string past ~512 MiB, and
// building one holds the whole list twice) nor one buffer on the socket. The socket's backpressure paces
// the reading. A failure after the first byte went out cuts the connection (the body is incomplete,
// and the client sees it so); one before it is answered as any other. A client that goes away stops
// the reading (the source is told, so a database cursor is let go).
import type { ServerResponse } from 'node:http';
import { REPLIED, type Replied } from './route.ts';
import { drained, JSON_TYPE } from './send.ts';

/** Characters of JSON gathered before a write. */
const WRITE_CHARS = 64 * 1024;

export async function streamJsonArray(res: ServerResponse, status: number, batches: AsyncIterable<readonly unknown[]>): Promise<Replied> {
  const iterator = batches[Symbol.asyncIterator]();
  // The first batch before the head: a failure to read anything is still an ordinary error reply.
  let next = await iterator.next();
  res.statusCode = status;
  res.setHeader('content-type', JSON_TYPE);
  let chunk = '[';
  let first = true;
  try {
    while (next.done !== true) {
      for (const item of next.value) {
        chunk += first ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
        first = false;
        if (chunk.length < WRITE_CHARS) continue;
        const more = res.write(chunk);
        chunk = '';
        if ((!more && !(await drained(res))) || res.destroyed) {
          await iterator.return?.();
          return REPLIED;
        }
      }
      next = await iterator.next();
    }
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    return REPLIED;
  }
  res.end(`${chunk}]`);
  return REPLIED;
}
