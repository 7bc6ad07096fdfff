// The shape check of an untrusted log's events, compiled once per worker thread: the zod schemas of
// src/events/event-schema.ts turned into JSON Schema (z.toJSONSchema, which throws on anything JSON
// Schema cannot say, so no zod rule is silently lost) and compiled by ajv into straight-line code,
// about four times cheaper per event than zod's interpreted parse. It decides only pass or fail: a
// chunk it fails is re-read sequentially with zod's parseEvent, which names the fault as it always has.
// test/persistence/compiled-event-check.spec.ts holds that it accepts exactly what parseEvent accepts,
// over generated valid events and their mutations.
//
// Compiling takes ~100 ms, so only the pipeline's worker threads use it (a log of one chunk is checked
// on the calling thread with zod).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { EventSchemaV1, EventSchemaV2 } from '../../../events/event-schema.ts';

/** Whether a parsed value is a well-formed event of a known schema version (with or without a top-level `hash`). */
export type EventCheck = (value: unknown) => boolean;

/**
 * `withHash`: the value may carry the NDJSON export's top-level `hash` member (a string); it is the
 * only member allowed beyond the event's own, which the check then covers without a copy of the value.
 */
export function compileEventCheck(withHash: boolean): EventCheck {
  // String lengths count code points in both (JSON Schema's rule, and zod's once a string is longer
  // than the limit in UTF-16 units).
  const ajv = new Ajv2020({ discriminator: true, logger: false, allErrors: false });
  const v1 = ajv.compile(jsonSchemaOf(EventSchemaV1, withHash));
  const v2 = ajv.compile(jsonSchemaOf(EventSchemaV2, withHash));
  // The version rule of parseEvent: a value with a `v` member is read as version 2 and later.
  return (value) => (typeof value === 'object' && value !== null && 'v' in value ? v2(value) : v1(value));
}

function jsonSchemaOf(schema: z.ZodType, withHash: boolean): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
  // ajv's default meta-schema is draft 2020-12 already; the $schema URL would make it look one up.
  delete json['$schema'];
  const branches = json['oneOf'];
  if (!Array.isArray(branches)) throw new Error('compiled event check: expected the schema to be a union of event types');
  // A discriminated union: ajv picks the branch by `type` instead of trying every one. Its
  // discriminator lets anything but an object through, so the object type is stated at the top too.
  json['discriminator'] = { propertyName: 'type' };
  json['type'] = 'object';
  if (withHash) {
    for (const branch of branches as { properties?: Record<string, unknown> }[]) {
      if (branch.properties === undefined) throw new Error('compiled event check: a branch without properties');
      branch.properties['hash'] = { type: 'string' };
    }
  }
  return json;
}
