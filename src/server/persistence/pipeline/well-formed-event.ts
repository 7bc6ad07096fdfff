// The shape check of one event's text for a chunk processed on the calling thread (a log of one chunk):
// zod's parseEvent, the source of truth. Kept out of chunk-work.ts so the pipeline's workers, which
// never validate, do not load the schemas.
import { parseEvent } from '../../../events/event-schema.ts';

/** Whether a text is one well-formed event (what is folded is what is checked). */
export function wellFormedEvent(text: string): boolean {
  try {
    return parseEvent(JSON.parse(text)).ok;
  } catch {
    return false;
  }
}
