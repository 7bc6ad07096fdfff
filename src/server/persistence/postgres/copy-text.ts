// Rows of the events table in COPY's text format, both ways. Text format escapes only backslash and
// the line and column separators; JSON text never holds a raw tab, newline or carriage return (JSON
// escapes them), so for JSON only the backslash needs doubling.
import { canonicalJson } from '../../../events/canonical.ts';
import { sha256Hex } from '../../../events/hash.ts';
import type { ExchangeEvent } from '../../../events/types.ts';

export const EVENT_COLUMNS = 'seq, type, time, data, hash, canonical';

const SPECIAL = /[\\\t\n\r]/;

export function copyEscape(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

export function copyUnescape(field: string): string {
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c);
}

// JSON.stringify (and so canonicalJson) writes NUL as \u0000 and a lone surrogate as \udXXX (paired
// ones go out as they are); jsonb accepts neither. An escaped backslash before "u0000" also matches,
// and is then shown as U+FFFD in the jsonb copy only, which is harmless.
const JSONB_UNSAFE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/;
const JSONB_UNSAFE_ALL = /\\u0000|\\ud[89a-f][0-9a-f]{2}/g;

/** The jsonb column's text: the data as JSON, with what jsonb cannot hold replaced by U+FFFD. */
export function jsonbSafe(json: string): string {
  return JSONB_UNSAFE.test(json) ? json.replace(JSONB_UNSAFE_ALL, '\\ufffd') : json;
}

const DATA_PREFIX = '{"data":';

export interface EncodedEvent {
  readonly hash: string;
  /** One line of COPY events (seq, type, time, data, hash, canonical) FROM STDIN. */
  readonly row: string;
}

/** The data column's JSON, cut out of the canonical text rather than serialized a second time. */
export function dataOfCanonical(text: string, seq: number): string {
  // Keys are sorted, so the canonical event is {"data":<data>,"seq":..,"time":..,"type":..}: the data's
  // JSON is the text between the prefix and ',"seq":' (neither time nor type can contain that).
  const end = text.lastIndexOf(',"seq":');
  if (!text.startsWith(DATA_PREFIX) || end < 0) throw new Error(`events: unexpected canonical form at seq ${seq}`);
  return jsonbSafe(text.slice(DATA_PREFIX.length, end));
}

function row(event: ExchangeEvent, text: string, hash: string): string {
  const data = dataOfCanonical(text, event.seq);
  return `${event.seq}\t${copyEscape(event.type)}\t${copyEscape(event.time)}\t${copyEscape(data)}\t${hash}\t${copyEscape(text)}\n`;
}

/** The chain link and the COPY row of an event, from one canonical serialization. */
export function encodeEvent(previousHash: string, event: ExchangeEvent): EncodedEvent {
  const text = canonicalJson(event);
  // chainHash's definition, H(previous ‖ canonical event), over the text already built.
  const hash = sha256Hex(previousHash + text);
  return { hash, row: row(event, text, hash) };
}

/** The COPY row of an event whose chain hash is already known (bulk loads, benchmarks). */
export function encodeEventRow(event: ExchangeEvent, hash: string): string {
  return row(event, canonicalJson(event), hash);
}

export interface StoredEvent {
  readonly event: ExchangeEvent;
  readonly hash: string;
  /** The canonical text the stored hash covers. */
  readonly text: string;
}

/** Parses one line (without its newline) of COPY (select seq, hash, canonical ...) TO STDOUT. */
export function decodeEventRow(line: string): StoredEvent {
  const t1 = line.indexOf('\t');
  const t2 = line.indexOf('\t', t1 + 1);
  if (t1 < 0 || t2 < 0) throw new Error(`events: malformed COPY row: ${line.slice(0, 120)}`);
  const seq = Number(line.slice(0, t1));
  const hash = line.slice(t1 + 1, t2);
  const text = copyUnescape(line.slice(t2 + 1));
  const event = JSON.parse(text) as ExchangeEvent;
  if (event.seq !== seq) throw new Error(`events: the row of seq ${seq} holds an event with seq ${String(event.seq)}`);
  return { event, hash, text };
}
