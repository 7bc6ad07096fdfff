// GET /api/v1/admin/events: the event log as NDJSON, one canonical event per line, for auditors. Lines
// are gathered into chunks of about 64 KiB and written with backpressure: when the socket's buffer is
// full the export waits for 'drain', so a slow reader never makes the whole log pile up in memory.
import { canonicalJson } from '../../events/canonical.ts';
import { EventsQuery } from './http-inputs.ts';
import { EventLineSchema } from './response-schemas.ts';
import { defineRoute, REPLIED } from './route.ts';
import { drained } from './send.ts';

const CHUNK_CHARS = 64 * 1024;

export const eventsExportRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/events',
  access: 'admin',
  tag: 'Admin',
  summary: 'Export the event log as NDJSON (for auditors)',
  description:
    'Every event with seq > after_seq, oldest first, one canonical JSON object (keys sorted) per line, up to the head at the start of the ' +
    'export. Replaying these events through the exchange rebuilds the state; see replay/.',
  query: EventsQuery,
  success: { status: 200, description: 'one Event per line (NDJSON)', contentType: 'application/x-ndjson', schema: EventLineSchema },
  errors: ['invalid_query'],
  handle: async (call) => {
    const { res } = call;
    const afterSeq = call.query.after_seq ?? 0;
    res.statusCode = 200;
    res.setHeader('content-type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    let chunk = '';
    for await (const event of call.context.service.persistence.readEvents(afterSeq)) {
      if (res.destroyed) return REPLIED;
      chunk += canonicalJson(event) + '\n';
      if (chunk.length >= CHUNK_CHARS) {
        const ok = res.write(chunk);
        chunk = '';
        if (!ok && !(await drained(res))) return REPLIED;
      }
    }
    res.end(chunk);
    return REPLIED;
  },
});
