// The shape check of an untrusted log's events: ajv's compiled validators of the event schemas, about
// four times cheaper per event than zod's interpreted parse, generated ahead of time into
// event-check.generated.js (event-check-source.ts says how and why). It decides only pass or fail: a
// chunk it fails is re-read sequentially with zod's parseEvent, which names the fault as it always has.
// test/persistence/compiled-event-check.spec.ts holds that it accepts exactly what parseEvent accepts
// (but for over-long strings of astral characters, which it refuses and zod may accept: it counts
// string lengths in UTF-16 units, zod in code points), over recorded events and their mutations.
import { v1, v2, v3 } from './event-check.generated.js';

/**
 * Whether a parsed value is a well-formed event of a known schema version. The version rule of
 * parseEvent: no `v` is version 1, `v: 2` version 2, any other `v` is checked as the current version
 * (whose literal refuses a version this code does not know).
 */
export function compiledEventCheck(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !('v' in value)) return v1(value);
  return (value as { v: unknown }).v === 2 ? v2(value) : v3(value);
}
