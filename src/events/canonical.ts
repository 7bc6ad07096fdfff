// Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped. The same value gives
// the same text whatever order its keys were built or stored in (PostgreSQL's jsonb reorders keys), so
// hashes over it are stable across a round trip through the database.
//
// It runs once per event on every hash (the PostgreSQL writer encodes every event with it), so it is
// written for speed: the objects of an event log come in a few dozen shapes, so the member order of each
// shape (its keys as Object.keys lists them) is worked out once, with the keys already quoted, and found
// again by comparing the key lists (interned strings: a pointer compare each). Sorting every object's
// keys on every call was most of the time.

/** One object shape: its keys as listed, and the order and quoted form to write them in. */
interface Shape {
  readonly keys: readonly string[];
  /** Indexes into `keys`, in sorted key order. */
  readonly order: readonly number[];
  /** `"key":` for each index of `keys`. */
  readonly prefixes: readonly string[];
}

// Shapes by their first key; a handful each. Bounded, so objects with ever-new keys cannot grow it.
const shapes = new Map<string, Shape[]>();
let shapeCount = 0;
const MAX_SHAPES = 4096;

function shapeOf(keys: string[]): Shape {
  const first = keys[0] as string;
  const known = shapes.get(first);
  if (known !== undefined) {
    outer: for (const shape of known) {
      const k = shape.keys;
      if (k.length !== keys.length) continue;
      for (let i = 1; i < keys.length; i++) if (k[i] !== keys[i]) continue outer;
      return shape;
    }
  }
  const order = keys.map((_, i) => i).sort((x, y) => ((keys[x] as string) < (keys[y] as string) ? -1 : 1));
  const shape: Shape = { keys, order, prefixes: keys.map((key) => JSON.stringify(key) + ':') };
  // Large records (a snapshot's maps keyed by id) are one-offs: not kept.
  if (shapeCount < MAX_SHAPES && keys.length <= 64) {
    shapeCount++;
    if (known === undefined) shapes.set(first, [shape]);
    else known.push(shape);
  }
  return shape;
}

/**
 * The canonical text of `value`, handed to `write` in pieces of about `pieceChars` (an array's items and an
 * object's members are never joined past that): the same characters as canonicalJson, for a value too
 * large to be one string (a state of millions of orders).
 */
export function writeCanonical(value: unknown, write: (piece: string) => void, pieceChars = 64 * 1024): void {
  let buffer = '';
  const emit = (text: string): void => {
    buffer += text;
    if (buffer.length >= pieceChars) {
      write(buffer);
      buffer = '';
    }
  };
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      emit(canonicalJson(v));
      return;
    }
    if (Array.isArray(v)) {
      emit('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) emit(',');
        const item: unknown = v[i];
        // An item is serialized whole unless it is itself a list or record of lists (a book's sides).
        if (item !== null && typeof item === 'object' && !Array.isArray(item)) walk(item);
        else emit(item === undefined ? 'null' : canonicalJson(item));
      }
      emit(']');
      return;
    }
    const record = v as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    emit('{');
    let first = true;
    for (const key of keys) {
      const member = record[key];
      if (member === undefined) continue;
      if (!first) emit(',');
      first = false;
      emit(`${JSON.stringify(key)}:`);
      walk(member);
    }
    emit('}');
  };
  walk(value);
  if (buffer !== '') write(buffer);
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
      const keys = Object.keys(record);
      if (keys.length === 0) return '{}';
      const shape = shapeOf(keys);
      let out = '{';
      let first = true;
      for (const i of shape.order) {
        const member = record[keys[i] as string];
        if (member === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += (shape.prefixes[i] as string) + canonicalJson(member);
      }
      return out + '}';
    }
    default:
      throw new TypeError(`canonicalJson: cannot serialize ${typeof value}`);
  }
}
