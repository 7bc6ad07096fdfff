// Rows of the events table in COPY's text format, both ways. Text format escapes only backslash and
// the line and column separators; JSON text never holds a raw tab, newline or carriage return (JSON
// escapes them), so for JSON only the backslash needs doubling.
import { canonicalJson } from '../../../events/canonical.ts';
import { sha256Hex } from '../../../events/hash.ts';
import type { ExchangeEvent } from '../../../events/types.ts';

export const EVENT_COLUMNS = 'seq, type, time, hash, canonical';

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

export interface EncodedEvent {
  readonly hash: string;
  /** One line of COPY events (seq, type, time, hash, canonical) FROM STDIN. */
  readonly row: string;
}

// The canonical text is the only copy of the event's body the table keeps (migration 005): no second
// serialization, and nothing for PostgreSQL to parse on the way in.
/** What a row needs of the event besides its text: the columns for querying. */
type RowHead = { readonly seq: number; readonly type: string; readonly time: string };

function row(event: RowHead, text: string, hash: string): string {
  return `${event.seq}\t${copyEscape(event.type)}\t${copyEscape(event.time)}\t${hash}\t${copyEscape(text)}\n`;
}

/** The chain link and the COPY row of an event, from one canonical serialization. */
export function encodeEvent(previousHash: string, event: ExchangeEvent): EncodedEvent {
  const text = canonicalJson(event);
  // chainHash's definition, H(previous ‖ canonical event), over the text already built.
  const hash = sha256Hex(previousHash + text);
  return { hash, row: row(event, text, hash) };
}

/** The COPY row of an event stored exactly as `text` (the characters its chain hash covers): restores. */
export function encodeStoredRow(event: RowHead, text: string, hash: string): string {
  return row(event, text, hash);
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
