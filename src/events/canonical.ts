// Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped. The same value gives
// the same text whatever order its keys were built or stored in (PostgreSQL's jsonb reorders keys), so
// hashes over it are stable across a round trip through the database.
//
// It runs once per event on every hash, so it is written for speed: keys that already come sorted (as
// most objects built by this code do) are not sorted again, and quoted keys are cached.

const quotedKeys = new Map<string, string>();

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 10_000) quotedKeys.set(key, quoted);
  }
  return quoted;
}

export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          out += item === undefined ? 'null' : canonicalJson(item);
        }
        return out + ']';
      }
      const record = value as Record<string, unknown>;
      let keys = Object.keys(record);
      for (let i = 1; i < keys.length; i++) {
        if ((keys[i - 1] as string) > (keys[i] as string)) {
          keys = keys.sort();
          break;
        }
      }
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += quoteKey(key) + ':' + canonicalJson(member);
      }
      return out + '}';
    }
    default:
      throw new TypeError(`canonicalJson: cannot serialize ${typeof value}`);
  }
}
