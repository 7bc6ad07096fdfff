// The shape check of an untrusted log's events, compiled once per process: the zod schemas of
// src/events/event-schema.ts turned into JSON Schema (z.toJSONSchema, which throws on anything JSON
// Schema cannot say, so no zod rule is silently lost) and compiled by ajv into straight-line code,
// about four times cheaper per event than zod's interpreted parse. It decides only pass or fail: a
// chunk it fails is re-read sequentially with zod's parseEvent, which names the fault as it always has.
// test/persistence/compiled-event-check.spec.ts holds that it accepts exactly what parseEvent accepts
// (but for over-long strings of astral characters, below), over recorded events and their mutations.
//
// Compiling takes ~100 ms, so only logs long enough to go through the pipeline's workers use it (a log
// of one chunk is checked with zod as it is framed).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { EventSchemaV1, EventSchemaV2 } from '../../../events/event-schema.ts';

/** Whether a parsed value is a well-formed event of a known schema version. */
export type EventCheck = (value: unknown) => boolean;

let compiled: EventCheck | undefined;

/** The check, compiled at the first call. */
export function compiledEventCheck(): EventCheck {
  compiled ??= compileEventCheck();
  return compiled;
}

export function compileEventCheck(): EventCheck {
  // String lengths in UTF-16 units (`unicode: false`; counting code points, JSON Schema's rule, was 6%
  // of the main thread's time). zod counts code points, so for a maximum this check is the stricter:
  // a string of more units than the limit but no more code points (astral characters) fails here and
  // passes zod, which the caller's sequential re-read then applies. It never accepts what zod refuses:
  // the schemas' minimums are all 1, where the two counts agree.
  const ajv = new Ajv2020({ discriminator: true, logger: false, allErrors: false, unicode: false } as ConstructorParameters<typeof Ajv2020>[0]);
  const v1 = ajv.compile(jsonSchemaOf(EventSchemaV1));
  const v2 = ajv.compile(jsonSchemaOf(EventSchemaV2));
  // The version rule of parseEvent: a value with a `v` member is read as version 2 and later.
  return (value) => (typeof value === 'object' && value !== null && 'v' in value ? v2(value) : v1(value));
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
  // ajv's default meta-schema is draft 2020-12 already; the $schema URL would make it look one up.
  delete json['$schema'];
  if (!Array.isArray(json['oneOf'])) throw new Error('compiled event check: expected the schema to be a union of event types');
  // A discriminated union: ajv picks the branch by `type` instead of trying every one. Its
  // discriminator lets anything but an object through, so the object type is stated at the top too.
  json['discriminator'] = { propertyName: 'type' };
  json['type'] = 'object';
  return json;
}
